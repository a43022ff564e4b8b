package io.rkllm.server.pipeline;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.EncoderInfo;
import io.rkllm.server.engine.LoadedModel;
import io.rkllm.server.engine.ModelLoad;
import io.rkllm.server.engine.ModelRegistry;
import io.rkllm.server.engine.RuntimeInfo;
import io.rkllm.server.engine.Sampling;
import io.rkllm.server.engine.VisionLoad;
import io.rkllm.server.models.ModelCatalog;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.request.SamplingOverrides;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Everything the routes do with models: list them, find one by id, alias or prefix, read its state, load and
 * unload it. The one place that joins the catalogue (what exists) and the engine (what is loaded).
 */
public final class ModelService {
    private final ModelCatalog catalog;
    private final ModelRegistry<ModelCacheState> registry;
    private final String slotsSetting;
    private final long memoryBytes;
    private final RuntimeInfo runtime;
    private final ServerConfig.Vision vision;
    private final ConcurrentMap<String, ModelLoad> loads = new ConcurrentHashMap<>();

    /**
     * @param slotsSetting {@code cache.slots}: a number or {@code auto}
     * @param memoryBytes the machine's memory, for {@code cache.slots: auto}
     */
    public ModelService(ModelCatalog catalog, ModelRegistry<ModelCacheState> registry, String slotsSetting,
                        long memoryBytes) {
        this(catalog, registry, slotsSetting, memoryBytes, DEFAULT_VISION);
    }

    /**
     * @param vision how vision models load: their encoder's cores, and whether they share the NPU
     */
    public ModelService(ModelCatalog catalog, ModelRegistry<ModelCacheState> registry, String slotsSetting,
                        long memoryBytes, ServerConfig.Vision vision) {
        this.catalog = catalog;
        this.registry = registry;
        this.slotsSetting = slotsSetting;
        this.memoryBytes = memoryBytes;
        this.runtime = registry.runtimeInfo();
        this.vision = vision;
    }

    public ModelService(ModelCatalog catalog, ModelRegistry<ModelCacheState> registry, ServerConfig.Cache cache) {
        this(catalog, registry, cache, DEFAULT_VISION);
    }

    public ModelService(ModelCatalog catalog, ModelRegistry<ModelCacheState> registry, ServerConfig.Cache cache,
                        ServerConfig.Vision vision) {
        this(catalog, registry, cache.slots(), SlotCount.systemMemory(Path.of("/proc/meminfo")), vision);
    }

    /** The built-in vision settings, for services made without a configuration (tests, tools). */
    static final ServerConfig.Vision DEFAULT_VISION = new ServerConfig.Vision("refuse", false, Duration.ofSeconds(10),
            20, 100, 128, "resend", false, "all");

    public List<ModelDescriptor> all() {
        return catalog.all();
    }

    /** The runtime's ABI, for /health. */
    public String runtimeAbi() {
        return runtime.abi();
    }

    RuntimeInfo runtime() {
        return runtime;
    }

    /** The model of that id, alias or unambiguous prefix, if any. */
    public Optional<ModelDescriptor> resolve(String name) {
        return catalog.resolve(name);
    }

    /** The model of that id, alias or unambiguous prefix; {@link Failure.ModelNotFound} naming the candidates. */
    public ModelDescriptor find(String name) {
        return catalog.resolve(name).orElseThrow(() -> {
            List<String> candidates = catalog.candidates(name);
            String detail = candidates.isEmpty() ? ". Available: " + ids() : ". Did you mean one of " + candidates
                    + "?";
            return new FailureException(new Failure.ModelNotFound(name, "The model '" + name + "' does not exist"
                    + detail));
        });
    }

    /** The model a request names; with none named, the only model, or else a loaded one. */
    public ModelDescriptor forRequest(String name) {
        if (!name.isBlank()) {
            return find(name);
        }
        List<ModelDescriptor> all = catalog.all();
        if (all.size() == 1) {
            return all.getFirst();
        }
        return registry.loadedModels().stream().findFirst().flatMap(m -> catalog.resolve(m.id()))
                .orElseThrow(() -> new FailureException(Failure.InvalidRequest.of("model",
                        "'model' is required: one of " + ids())));
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
    boolean embeddingCached(ModelDescriptor model, String digest) {
        return registry.embeddings().contains(model.id(), digest);
    }

    /** Loads the model (waiting for it); {@link Failure.LoadFailed} when it cannot be. */
    public void load(ModelDescriptor model) {
        acquire(model);
    }

    /** Unloads the model if it is loaded: running work ends first, queued work is cancelled. */
    public boolean unload(ModelDescriptor model) {
        return registry.unload(model.id(), "requested");
    }

    /** What the model's KV caches hold now; nothing when it is not loaded. */
    ContextFit.Held cachedConversations(ModelDescriptor model) {
        return registry.find(model.id()).map(m -> m.state().held()).orElse(ContextFit.Held.NOTHING);
    }

    LoadedModel<ModelCacheState> acquire(ModelDescriptor model) {
        return registry.acquire(loadOf(model));
    }

    /** The engine's view of a model: its file, context, init sampling (the only sampling on 1.2) and slots. */
    ModelLoad loadOf(ModelDescriptor model) {
        return loads.computeIfAbsent(model.id(), id -> {
            Sampling sampling = SamplingChoice.of(runtime.defaultSampling(), model.sampling(), SamplingOverrides.NONE);
            Optional<VisionLoad> visionLoad = model.vision().map(v -> new VisionLoad(v.encoder(), v.imageStart(),
                    v.imageEnd(), v.imageContent(), vision.encoderCores(), v.baseDomainId(), !vision.coResident()));
            return new ModelLoad(id, model.file(), model.contextLength(), sampling,
                    SlotCount.resolve(slotsSetting, model.sizeBytes(), memoryBytes), MemoryEstimate.perHandleMb(model),
                    visionLoad);
        });
    }

    private List<String> ids() {
        return catalog.all().stream().map(ModelDescriptor::id).toList();
    }

    private static ModelStatus status(LoadedModel<?> m) {
        return new ModelStatus(m.id(), m.isReady(), !m.isIdle(), m.worker().queued(), m.lastUsed(),
                m.worker().loadedSlots());
    }
}
