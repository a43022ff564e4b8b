package io.rkllm.server.pipeline;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.LoadedModel;
import io.rkllm.server.engine.ModelRegistry;
import io.rkllm.server.engine.Priority;
import io.rkllm.server.engine.Reservation;
import io.rkllm.server.engine.contract.cache.CacheContents;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.engine.contract.VisionLoad;
import io.rkllm.server.models.ModelCatalog;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelKind;
import io.rkllm.server.models.TemplateSource;
import io.rkllm.server.pipeline.request.SamplingOverrides;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Everything the routes do with models: list them, find one by id, alias or prefix, read its state, load and
 * unload it. The one place that joins the catalogue (what exists) and the engine (what is loaded). The catalogue
 * follows the models directory while the server runs ({@link CatalogSource}): a model added appears, a model whose
 * file went away or changed is retired from the engine once its queued work is done, and one being deleted is
 * withdrawn and unloaded before its files go.
 */
public final class ModelService {
    private final CatalogSource source;
    private volatile ModelCatalog catalog;
    private final ModelRegistry registry;
    private final String slotsSetting;
    private final long memoryBytes;
    private final int embeddingQueue;
    private final ServerConfig.Vision vision;
    private final ConcurrentMap<String, ModelLoad> loads = new ConcurrentHashMap<>();
    private final ModelDialects dialects = new ModelDialects();

    /**
     * @param slotsSetting {@code cache.slots}: a number or {@code auto}
     * @param memoryBytes the machine's memory, for {@code cache.slots: auto}
     */
    public ModelService(ModelCatalog catalog, ModelRegistry registry, String slotsSetting,
                        long memoryBytes) {
        this(catalog, registry, slotsSetting, memoryBytes, DEFAULT_VISION, DEFAULT_EMBEDDING_QUEUE);
    }

    /**
     * @param vision how vision models load: their encoder's cores, and whether they share the NPU
     */
    public ModelService(ModelCatalog catalog, ModelRegistry registry, String slotsSetting,
                        long memoryBytes, ServerConfig.Vision vision) {
        this(catalog, registry, slotsSetting, memoryBytes, vision, DEFAULT_EMBEDDING_QUEUE);
    }

    /**
     * @param embeddingQueue requests that may wait for an embedding model ({@code embeddings.max_waiting})
     */
    public ModelService(ModelCatalog catalog, ModelRegistry registry, String slotsSetting,
                        long memoryBytes, int embeddingQueue) {
        this(catalog, registry, slotsSetting, memoryBytes, DEFAULT_VISION, embeddingQueue);
    }

    public ModelService(ModelCatalog catalog, ModelRegistry registry, String slotsSetting,
                        long memoryBytes, ServerConfig.Vision vision, int embeddingQueue) {
        this(CatalogSource.fixed(catalog), registry, slotsSetting, memoryBytes, vision, embeddingQueue);
    }

    public ModelService(CatalogSource source, ModelRegistry registry, String slotsSetting,
                        long memoryBytes, ServerConfig.Vision vision, int embeddingQueue) {
        this.source = source;
        this.catalog = source.current();
        this.registry = registry;
        this.slotsSetting = slotsSetting;
        this.memoryBytes = memoryBytes;
        this.embeddingQueue = embeddingQueue;
        this.vision = vision;
    }

    public ModelService(ModelCatalog catalog, ModelRegistry registry, ServerConfig config) {
        this(CatalogSource.fixed(catalog), registry, config);
    }

    public ModelService(CatalogSource source, ModelRegistry registry, ServerConfig config) {
        this(source, registry, config.cache().slots(), SlotCount.systemMemory(Path.of("/proc/meminfo")),
                config.vision(), config.embeddings().maxWaiting());
    }

    /** What a request for a model hears when the server has none at all (a fresh install): how to get one. */
    public static final String NO_MODELS = "No model is installed yet: download one with `rkllm-server pull"
            + " OWNER/REPO` (e.g. rkllm-server pull bartowski/Qwen2.5-1.5B-Instruct-GGUF), POST /api/pull, or the chat"
            + " page's download; docs/models.md recommends models for each board.";

    /** The built-in {@code embeddings.max_waiting}, for services made without a configuration (tests, tools). */
    static final int DEFAULT_EMBEDDING_QUEUE = 1024;

    /** The built-in vision settings, for services made without a configuration (tests, tools). */
    static final ServerConfig.Vision DEFAULT_VISION = new ServerConfig.Vision("refuse", false, Duration.ofSeconds(10),
            20, 100, 128, "resend", false, "all");

    public List<ModelDescriptor> all() {
        return catalog().all();
    }

    /** The catalogue, looked at again when the models directory changed. */
    private ModelCatalog catalog() {
        source.changed().ifPresent(this::adopt);
        return catalog;
    }

    /** Whether discovery found {@code file} and its engine refused it for what it is (damaged, not a model). */
    public boolean refusedFile(java.nio.file.Path file) {
        return catalog().refusedFile(file);
    }

    /** Reads the models directory now (after a pull or a delete), so the change shows in the next answer. */
    public void refresh() {
        adopt(source.rescan());
    }

    /**
     * The model of exactly this id or alias (or either with {@code :latest}), any case: what a delete may name, the
     * name it was pulled by included, never a prefix.
     */
    public Optional<ModelDescriptor> exactly(String name) {
        return catalog().exactly(name);
    }

    /**
     * Takes a model out of service before its files are deleted: no request finds it from now on, work it is
     * running ends, work queued for it is cancelled, and it is unloaded.
     */
    public void withdraw(ModelDescriptor model) {
        synchronized (this) {
            catalog = catalog.without(model.id());
            loads.remove(model.id());
        }
        registry.unload(model.id(), "deleted");
    }

    /**
     * A new catalogue: models whose file is gone, or whose file or description changed, are retired from the engine
     * (unloaded when idle, else once their queue is done) so that the next request loads them as they are now.
     */
    private synchronized void adopt(ModelCatalog next) {
        ModelCatalog old = catalog;
        if (next == old) {
            return;
        }
        catalog = next;
        for (ModelDescriptor m : old.all()) {
            Optional<ModelDescriptor> now = next.byId(m.id());
            if (now.isEmpty() || !now.get().equals(m)) {
                loads.remove(m.id());
                registry.retire(m.id(), now.isEmpty() ? "its file is gone" : "its file changed");
            }
        }
    }

    /** The ABI of the first available engine's runtime, for /health; empty when none is available. */
    public String runtimeAbi() {
        return registry.primaryRuntime().map(RuntimeInfo::abi).orElse("");
    }

    /**
     * What the runtime that runs {@code model} does: sampling per run or fixed at load, its defaults.
     *
     * @throws FailureException {@link Failure.LoadFailed} when no available engine runs the model
     */
    RuntimeInfo runtime(ModelDescriptor model) {
        return registry.runtimeFor(model.id(), model.facts().engine());
    }

    /** The model of that id, alias or unambiguous prefix, if any. */
    public Optional<ModelDescriptor> resolve(String name) {
        return catalog().resolve(name);
    }

    /** The model of that id, alias or unambiguous prefix; {@link Failure.ModelNotFound} naming the candidates. */
    public ModelDescriptor find(String name) {
        ModelCatalog catalog = catalog();
        return catalog.resolve(name).orElseThrow(() -> {
            if (catalog.isEmpty()) {
                return new FailureException(new Failure.ModelNotFound(name, "The model '" + name + "' does not exist."
                        + " " + NO_MODELS));
            }
            List<String> candidates = catalog.candidates(name);
            String detail = candidates.isEmpty() ? ". Available: " + ids() : ". Did you mean one of " + candidates
                    + "?";
            return new FailureException(new Failure.ModelNotFound(name, "The model '" + name + "' does not exist"
                    + detail));
        });
    }

    /**
     * The chat model a request names; with none named, the only chat model, or else the loaded one used last. An
     * embedding model is refused: it cannot chat.
     */
    public ModelDescriptor forRequest(String name) {
        return forKind(name, ModelKind.CHAT);
    }

    /** The embedding model a request names, the same way; a chat model or a reranker is refused. */
    public ModelDescriptor forEmbedding(String name) {
        ModelDescriptor model = forKind(name, ModelKind.EMBEDDING);
        if (model.ranks()) {
            throw new FailureException(new Failure.InvalidRequest("model", "model_not_supported", "The model '"
                    + model.id() + "' is a reranker: it scores documents against a query (POST /v1/rerank) and makes"
                    + " no embeddings."));
        }
        return model;
    }

    /** The reranker a request names (or the only one); any other model is refused, naming the rerankers. */
    public ModelDescriptor forRerank(String name) {
        List<ModelDescriptor> rankers = catalog().all().stream().filter(ModelDescriptor::ranks).toList();
        if (name.isBlank()) {
            if (rankers.size() == 1) {
                return rankers.getFirst();
            }
            if (rankers.isEmpty()) {
                throw new FailureException(new Failure.InvalidRequest("model", "model_not_supported", "No reranker is"
                        + " installed: put a GGUF reranker (a model with rank pooling, such as bge-reranker-v2-m3) in"
                        + " the models directory"));
            }
            throw new FailureException(Failure.InvalidRequest.of("model", "'model' is required: one of "
                    + rankers.stream().map(ModelDescriptor::id).toList()));
        }
        ModelDescriptor model = find(name);
        if (!model.ranks()) {
            throw new FailureException(new Failure.InvalidRequest("model", "model_not_supported", "The model '"
                    + model.id() + "' is not a reranker (a GGUF model with rank pooling, such as bge-reranker)"
                    + (rankers.isEmpty() ? "; none is installed." : "; rerankers: "
                    + rankers.stream().map(ModelDescriptor::id).toList() + ".")));
        }
        return model;
    }

    private ModelDescriptor forKind(String name, ModelKind kind) {
        if (!name.isBlank()) {
            ModelDescriptor model = find(name);
            if (model.kind() != kind) {
                throw new FailureException(new Failure.InvalidRequest("model", "model_not_supported",
                        wrongKind(model)));
            }
            return model;
        }
        ModelCatalog catalog = catalog();
        List<ModelDescriptor> all = catalog.all().stream().filter(m -> m.kind() == kind).toList();
        if (all.size() == 1) {
            return all.getFirst();
        }
        if (all.isEmpty() && catalog.isEmpty()) {
            throw new FailureException(new Failure.ModelNotFound("", NO_MODELS));
        }
        // the one used last: a client that names no model (an editor's plugin) means the one it has been using
        return registry.loadedModels().stream().sorted(Comparator.comparing(LoadedModel::lastUsed).reversed())
                .flatMap(m -> catalog.resolve(m.id()).stream()).filter(m -> m.kind() == kind).findFirst()
                .orElseThrow(() -> new FailureException(Failure.InvalidRequest.of("model",
                        "'model' is required: one of " + all.stream().map(ModelDescriptor::id).toList())));
    }

    private String wrongKind(ModelDescriptor model) {
        List<String> others = catalog().all().stream().filter(m -> m.kind() != model.kind())
                .map(ModelDescriptor::id).toList();
        if (model.isEmbedding()) {
            return "The model '" + model.id() + "' is an embedding model: it turns text into vectors (POST "
                    + "/v1/embeddings, /api/embed) and cannot chat or complete text."
                    + (others.isEmpty() ? "" : " Chat models: " + others + ".");
        }
        return "The model '" + model.id() + "' is a chat model and makes no embeddings; use an embedding model "
                + (others.isEmpty() ? "(none is installed: see docs/embeddings.md)." : others + ".");
    }

    /** The model's state in the engine; empty when it is not loaded. */
    public Optional<ModelStatus> status(ModelDescriptor model) {
        return registry.find(model.id()).map(ModelService::status);
    }

    /** Every model with a worker (loading or loaded), in load order. */
    public List<ModelStatus> loaded() {
        return registry.loadedModels().stream().map(ModelService::status).toList();
    }

    /** A vision model's encoder, when the model is loaded: the picture size it takes and its tokens per picture. */
    public Optional<EncoderInfo> encoder(ModelDescriptor model) {
        return registry.find(model.id()).flatMap(LoadedModel::encoder);
    }

    /** Whether the model's embedding of that picture is cached (its encoder need not run for it). */
    boolean imageEmbeddingCached(ModelDescriptor model, String digest) {
        return registry.imageEmbeddings().contains(model.id(), digest);
    }

    /** Loads the model (waiting for it); {@link Failure.LoadFailed} when it cannot be. */
    public void load(ModelDescriptor model) {
        acquire(model);
    }

    /** Unloads the model if it is loaded: running work ends first, queued work is cancelled. */
    public boolean unload(ModelDescriptor model) {
        return registry.unload(model.id(), "requested");
    }

    /**
     * Loads the model if needed and takes a place in its queue ({@link #held}).
     *
     * @throws FailureException when the model cannot be loaded or its queue is full
     */
    public Reservation reserve(ModelDescriptor model, Priority priority) {
        return held(model, priority).place();
    }

    /** A loaded model and the place its caller holds in its queue (release it when no work follows). */
    record Held(LoadedModel model, Reservation place) {
    }

    /**
     * Loads the model if needed, a place taken in its queue as it is chosen: no other load unloads it for being idle
     * before its request has queued (a switch under {@code models.max_loaded: 1} did).
     */
    Held held(ModelDescriptor model, Priority priority) {
        for (int attempt = 0; ; attempt++) {
            AtomicReference<Reservation> place = new AtomicReference<>();
            try {
                return new Held(registry.acquire(loadOf(model), m -> place.set(m.worker().reserve(priority))),
                        place.get());
            } catch (RuntimeException e) {
                Optional.ofNullable(place.get()).ifPresent(Reservation::release);
                // chosen as it began to give way to another model (unloaded by hand, say): chosen again
                if (!(e instanceof FailureException f && f.failure() instanceof Failure.ModelUnloading)
                        || attempt == 2) {
                    throw e;
                }
            }
        }
    }

    /** What the model's KV caches hold now; nothing when it is not loaded. */
    CacheContents cachedConversations(ModelDescriptor model) {
        return registry.find(model.id()).map(LoadedModel::held).orElse(CacheContents.NOTHING);
    }

    /** The name of the dialect the model's answers are read in ({@code gpt-oss}, {@code hermes}...). */
    public String dialect(ModelDescriptor model) {
        return dialects.of(model).name();
    }

    /** Which dialect a model speaks and whether its prompt opens its reasoning. */
    ModelDialects dialects() {
        return dialects;
    }

    LoadedModel acquire(ModelDescriptor model) {
        return registry.acquire(loadOf(model), chosen -> { });
    }

    /**
     * The engine's view of a model: its file, context, init sampling (the only sampling on 1.2), slots, memory
     * and queue. An embedding model has one slot (each run starts from an empty cache: there is nothing to keep)
     * and a queue long enough for a document's chunks sent all at once.
     */
    ModelLoad loadOf(ModelDescriptor model) {
        return loads.computeIfAbsent(model.id(), id -> {
            Sampling sampling = SamplingChoice.of(runtime(model).defaultSampling(), model.sampling(),
                    SamplingOverrides.NONE);
            // an engine whose one context holds every conversation (llama.cpp's sequences) loads one copy
            int slots = model.isEmbedding() || model.facts().oneCopyServesAll() ? 1
                    : SlotCount.resolve(slotsSetting, model, memoryBytes);
            Optional<VisionLoad> visionLoad = model.vision().map(v -> new VisionLoad(v, !vision.coResident(),
                    ModelMemory.encoderMb(v)));
            return new ModelLoad(id, model.facts().engine(), model.file(), model.family(),
                    new ModelLoad.Runs(model.contextLength(), sampling, model.isEmbedding(),
                            model.template().origin().equals(TemplateSource.BESIDE) ? model.template().jinja()
                                    : Optional.empty()),
                    new ModelLoad.Copies(slots, ModelMemory.perHandleMb(model), model.isEmbedding() ? embeddingQueue : 0),
                    visionLoad);
        });
    }

    private List<String> ids() {
        return catalog().all().stream().map(ModelDescriptor::id).toList();
    }

    private static ModelStatus status(LoadedModel m) {
        return new ModelStatus(m.id(), m.isReady(), !m.isIdle(), m.worker().queued(), m.worker().running(),
                m.worker().parallelGenerations(), m.lastUsed(), m.worker().loadedSlots());
    }
}
