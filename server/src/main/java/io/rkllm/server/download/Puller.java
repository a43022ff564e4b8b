package io.rkllm.server.download;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pull, start to end: the name parsed, the repository listed, the files chosen for this board, those already
 * there with the Hub's digest kept (an up-to-date model downloads nothing), the disk's room checked, each missing
 * file downloaded and verified, then all of them placed in the model's folder, where discovery finds the model.
 * One instance serves every pull of a process (the command's one, or the server's routes'); thread-safe.
 */
public final class Puller {
    private static final Logger LOG = LoggerFactory.getLogger(Puller.class);

    /**
     * How transfers recover.
     *
     * @param attempts     requests per file before a transfer that is cut, or whose Hub is out of reach or busy, is
     *                     given up (its partial kept for the next pull)
     * @param retryDelay   the first pause before resuming such a transfer (doubled each time, longer when the Hub's
     *                     {@code Retry-After} asks for it)
     * @param stallTimeout a transfer without a byte for this long is cut and resumed
     */
    public record Settings(int attempts, Duration retryDelay, Duration stallTimeout) {
        public static final Settings DEFAULT = new Settings(Transfer.Settings.DEFAULT.attempts(),
                Transfer.Settings.DEFAULT.retryDelay(), Transfer.Settings.DEFAULT.stallTimeout());
    }

    private final HubSource hubs;
    private final ModelsDirectory models;
    private final Board board;
    private final Settings settings;
    private final Transfer transfer;

    public Puller(HubSource hubs, ModelsDirectory models, Board board) {
        this(hubs, models, board, Settings.DEFAULT);
    }

    public Puller(HubSource hubs, ModelsDirectory models, Board board, Settings settings) {
        this(hubs, models, board, settings, Transfer.Opener.FILE_SYSTEM);
    }

    /** @param partials how partial downloads are opened (the tests' disk that fills up) */
    Puller(HubSource hubs, ModelsDirectory models, Board board, Settings settings, Transfer.Opener partials) {
        this.hubs = hubs;
        this.models = models;
        this.board = board;
        this.settings = settings;
        this.transfer = new Transfer(new Transfer.Settings(settings.attempts(), settings.retryDelay(),
                settings.stallTimeout()), partials);
    }

    public ModelsDirectory models() {
        return models;
    }

    /**
     * Pulls {@code model} into the models directory: a Hugging Face repository ({@link ModelName}: {@code hf.co/...},
     * {@code OWNER/REPO[:QUANT]}, an address of the Hub) or a model of an Ollama registry ({@link OllamaName}:
     * {@code qwen3:4b}, {@code NAMESPACE/MODEL:TAG}, {@code HOST/NAMESPACE/MODEL:TAG}). A name of two parts is looked
     * for on the Hub first and, when the Hub has no such repository, in Ollama's registry.
     */
    public PullResult pull(String model, PullProgress progress) throws PullException {
        return pull(model, false, progress);
    }

    /**
     * The same; {@code insecure} lets a registry other than the default one be asked over plain http (Ollama's
     * {@code insecure}, which Open WebUI always sends: the default registry and the Hub are always asked over https).
     */
    public PullResult pull(String model, boolean insecure, PullProgress progress) throws PullException {
        Target target = target(model);
        return switch (target) {
            case Target.OnTheHub hub -> pullFromHub(hub.name(), listing(hub.name(), progress), progress);
            case Target.InARegistry registry -> pullFromRegistry(registry.name(), insecure, progress);
            case Target.Either either -> {
                RepoListing listing;
                try {
                    listing = listing(either.hub(), progress);
                } catch (PullException onHub) {
                    // no such repository on the Hub, or no Hub to ask: the name may be a model of Ollama's registry
                    boolean noRepository = onHub.kind() == PullException.Kind.NOT_FOUND
                            && onHub.getMessage().startsWith("no repository");
                    if (!noRepository && onHub.kind() != PullException.Kind.BAD_GATEWAY) {
                        throw onHub;
                    }
                    try {
                        yield pullFromRegistry(either.registry(), insecure, progress);
                    } catch (PullException inRegistry) {
                        if (inRegistry.kind() == PullException.Kind.NOT_FOUND && noRepository) {
                            throw new PullException(PullException.Kind.NOT_FOUND, onHub.getMessage() + "; nor is "
                                    + either.registry().shortest() + " a model of the Ollama registry");
                        }
                        if (inRegistry.kind() == PullException.Kind.NOT_FOUND
                                || inRegistry.kind() == PullException.Kind.BAD_GATEWAY) {
                            throw onHub; // the registry could not be asked either: the Hub's answer is the one
                        }
                        throw inRegistry;
                    }
                }
                yield pullFromHub(either.hub(), listing, progress);
            }
        };
    }

    /** The repository's listing, a gated one refused without a token. */
    private RepoListing listing(ModelName name, PullProgress progress) throws PullException {
        HubClient hub = new HubClient(hubs.hub(), settings.stallTimeout());
        progress.listing(name.repo(), hub.hub().endpoint());
        RepoListing listing = hub.listing(name);
        if (listing.gated() && hub.hub().token().isEmpty()) {
            throw hub.gatedRefusal(listing.repo());
        }
        return listing;
    }

    /**
     * What a name names, checked before anything is asked of the network.
     *
     * @throws PullException {@link PullException.Kind#INVALID} for a name that is neither a repository of the Hub
     *                       nor a model of a registry
     */
    public static Target target(String text) throws PullException {
        String s = text == null ? "" : text.strip();
        boolean hubForm = s.regionMatches(true, 0, "hf.co/", 0, 6) || s.regionMatches(true, 0, "huggingface.co/", 0, 15)
                || s.regionMatches(true, 0, "http://", 0, 7) || s.regionMatches(true, 0, "https://", 0, 8);
        Optional<OllamaName> ollama = hubForm ? Optional.empty() : OllamaName.parse(s);
        if (ollama.isPresent() && (ollama.get().explicitHost() || !ollama.get().explicitNamespace())) {
            return new Target.InARegistry(ollama.get());
        }
        ModelName hub;
        try {
            hub = ModelName.parse(s);
        } catch (PullException e) {
            if (ollama.isPresent()) {
                return new Target.InARegistry(ollama.get());
            }
            throw e;
        }
        return ollama.isPresent() ? new Target.Either(hub, ollama.get()) : new Target.OnTheHub(hub);
    }

    /** Where a pull's model is: on the Hub, in a registry, or (a name of two parts) on the Hub else the registry. */
    public sealed interface Target {
        record OnTheHub(ModelName name) implements Target {
        }

        record InARegistry(OllamaName name) implements Target {
        }

        record Either(ModelName hub, OllamaName registry) implements Target {
        }
    }

    private PullResult pullFromHub(ModelName name, RepoListing listing, PullProgress progress) throws PullException {
        HubClient hub = new HubClient(hubs.hub(), settings.stallTimeout());
        PullPlan plan = PullPlanner.plan(name, listing, board);
        progress.planned(plan);
        return fetchAndPlace(plan, listing, (f, offset) -> hub.open(listing, f, offset), progress);
    }

    private PullResult pullFromRegistry(OllamaName name, boolean insecure, PullProgress progress)
            throws PullException {
        Hub hub = hubs.hub();
        if (name.onTheHub()) {
            // hf.co/OWNER/REPO:QUANT as an Ollama name: the Hub, through its own API
            ModelName onHub = ModelName.parse(name.namespace() + "/" + name.model()
                    + (name.tag().equals(OllamaName.DEFAULT_TAG) ? "" : ":" + name.tag()));
            return pullFromHub(onHub, listing(onHub, progress), progress);
        }
        String endpoint = name.host().equalsIgnoreCase(OllamaName.DEFAULT_HOST) ? hub.registry()
                : (insecure ? "http://" : "https://") + name.host();
        RegistryClient registry = new RegistryClient(endpoint, hub.userAgent(), settings.stallTimeout());
        progress.listing(name.shortest(), endpoint);
        RegistryClient.Manifest manifest = registry.manifest(name);
        RegistryPlanner.modelLayer(name, manifest);
        Optional<byte[]> params = small(registry, name, manifest, RegistryPlanner.PARAMS);
        Optional<byte[]> system = small(registry, name, manifest, RegistryPlanner.SYSTEM);
        PullPlan plan = RegistryPlanner.plan(name, manifest, params, system);
        progress.planned(plan);
        RepoListing listing = new RepoListing(name.full(), manifest.digest(), false, plan.files());
        return fetchAndPlace(plan, listing, (f, offset) -> registry.open(name, f, offset), progress);
    }

    private static Optional<byte[]> small(RegistryClient registry, OllamaName name, RegistryClient.Manifest manifest,
                                          String mediaType) throws PullException {
        Optional<RegistryClient.Layer> layer = manifest.layer(mediaType);
        return layer.isEmpty() ? Optional.empty() : Optional.of(registry.small(name, layer.get()));
    }

    /** The plan's files: those already there kept, the others fetched and verified, then all placed in one step. */
    private PullResult fetchAndPlace(PullPlan plan, RepoListing listing, Transfer.Source source, PullProgress progress)
            throws PullException {
        models.create();
        models.pruneStale(ModelsDirectory.STALE_PARTIAL, Instant.now())
                .forEach(p -> LOG.info("removed {}: a partial download no pull wrote for {} days", p,
                        ModelsDirectory.STALE_PARTIAL.toDays()));
        Path folder = models.folder(plan);
        try (AutoCloseable ignored = models.lock(plan.folder())) {
            return fetchAndPlace(plan, folder, source, listing, progress);
        } catch (PullException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private PullResult fetchAndPlace(PullPlan plan, Path folder, Transfer.Source source, RepoListing listing,
                                     PullProgress progress) throws PullException {
        models.checkFolder(folder, plan);
        Optional<Receipt> receipt = Receipt.read(folder);
        List<HubFile> missing = new ArrayList<>();
        for (HubFile f : plan.files()) {
            if (models.present(folder, f, receipt, progress)) {
                progress.transfer(f, f.size());
            } else {
                missing.add(f);
            }
        }
        boolean vouched = receipt.isPresent() && plan.files().stream().allMatch(f -> f.name().endsWith(".yaml")
                || receipt.get().vouchesFor(folder.resolve(f.name()), f));
        boolean sidecarMissing = plan.sidecar().isPresent() && !Files.exists(folder.resolve("model.yaml"));
        boolean sameSource = receipt.isPresent() && receipt.get().source().equals(listing.repo())
                && receipt.get().revision().equals(listing.revision());
        if (missing.isEmpty() && vouched && !sidecarMissing && sameSource) {
            return new PullResult(plan, folder, folder.resolve(plan.primary().name()), 0);
        }
        models.requireSpace(missing.stream().mapToLong(f -> f.size() - models.partialBytes(f)).sum());
        Map<HubFile, Path> verified = new LinkedHashMap<>();
        long downloaded = 0;
        try {
            for (HubFile f : missing) {
                Path partial = models.partial(f);
                downloaded += transfer.fetch(source, f, partial, progress);
                verified.put(f, partial);
            }
            progress.placing(folder);
            models.place(plan, folder, verified, receipt.orElse(Receipt.empty()), listing);
        } catch (PullException e) {
            if (!e.resumable()) {
                models.discard(missing);
            } else {
                models.tidy();
            }
            throw e;
        }
        LOG.info("pulled {} into {} ({} downloaded)", listing.repo() + "/" + plan.primary().path(), folder,
                Sizes.of(downloaded));
        // a model whose files were all there, only unrecorded, counts as downloaded by nothing
        return new PullResult(plan, folder, folder.resolve(plan.primary().name()), downloaded);
    }
}
