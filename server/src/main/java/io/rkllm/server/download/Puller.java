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

    /** Pulls {@code model} (see {@link ModelName}) into the models directory. */
    public PullResult pull(String model, PullProgress progress) throws PullException {
        ModelName name = ModelName.parse(model);
        return pull(name, new HubClient(hubs.hub(), settings.stallTimeout()), progress);
    }

    private PullResult pull(ModelName name, HubClient hub, PullProgress progress) throws PullException {
        progress.listing(name.repo());
        RepoListing listing = hub.listing(name);
        if (listing.gated() && hub.hub().token().isEmpty()) {
            throw hub.gatedRefusal(listing.repo());
        }
        PullPlan plan = PullPlanner.plan(name, listing, board);
        progress.planned(plan);
        models.create();
        models.pruneStale(ModelsDirectory.STALE_PARTIAL, Instant.now())
                .forEach(p -> LOG.info("removed {}: a partial download no pull wrote for {} days", p,
                        ModelsDirectory.STALE_PARTIAL.toDays()));
        Path folder = models.folder(plan);
        try (AutoCloseable ignored = models.lock(plan.folder())) {
            return pull(plan, folder, hub, listing, progress);
        } catch (PullException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private PullResult pull(PullPlan plan, Path folder, HubClient hub, RepoListing listing, PullProgress progress)
            throws PullException {
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
        if (missing.isEmpty() && vouched && !sidecarMissing) {
            return new PullResult(plan, folder, folder.resolve(plan.primary().name()), 0);
        }
        models.requireSpace(missing.stream().mapToLong(f -> f.size() - models.partialBytes(f)).sum());
        Map<HubFile, Path> verified = new LinkedHashMap<>();
        long downloaded = 0;
        try {
            for (HubFile f : missing) {
                Path partial = models.partial(f);
                downloaded += transfer.fetch(hub, listing, f, partial, progress);
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
