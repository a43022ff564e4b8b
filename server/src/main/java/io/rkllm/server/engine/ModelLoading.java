package io.rkllm.server.engine;

import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.EncoderListener;
import io.rkllm.server.engine.contract.ImageEmbeddingCache;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.VisionLoad;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The load policy around one model's native loads, on its worker thread: the memory of models switched out must be
 * free first, another slot must keep the loaded models within {@code models.max_memory}, and every load (a slot, an
 * image encoder) passes the memory check and is counted as held until the worker stops.
 */
final class ModelLoading implements LoadContext {
    private static final Logger LOG = LoggerFactory.getLogger(ModelLoading.class);

    private final ModelLoad spec;
    private final List<CompletableFuture<Void>> freed;
    /** What its loads hold, counted free again when the worker stops. */
    private final AtomicLong reserved;
    private final AtomicInteger handles = new AtomicInteger();
    private final MemoryBudget memory;
    private final boolean failureIsFatal;
    /** Refuses another slot that would take the loaded models beyond {@code models.max_memory}. */
    private final Consumer<ModelLoad> anotherSlot;
    private final ModelListener listener;
    private final ImageEmbeddingCache pictures;

    /**
     * @param freed the releases of the models being stopped, which each load waits for
     * @param failureIsFatal the engine's failed load takes the process down (the memory check is strict then)
     */
    ModelLoading(ModelLoad spec, List<CompletableFuture<Void>> freed, AtomicLong reserved, MemoryBudget memory,
                 boolean failureIsFatal, Consumer<ModelLoad> anotherSlot, ModelListener listener,
                 ImageEmbeddingCache pictures) {
        this.spec = spec;
        this.freed = freed;
        this.reserved = reserved;
        this.memory = memory;
        this.failureIsFatal = failureIsFatal;
        this.anotherSlot = anotherSlot;
        this.listener = listener;
        this.pictures = pictures;
    }

    @Override
    public <T> T loadSlot(Supplier<T> init) {
        // The NPU memory of a switched-out model must be free before the next one loads.
        freed.forEach(CompletableFuture::join);
        if (handles.getAndIncrement() > 0) {
            anotherSlot.accept(spec);
        }
        LOG.info("loading model {} from {}", spec.id(), spec.file());
        long t0 = System.nanoTime();
        try {
            if (!Files.isReadable(spec.file())) {
                // say so plainly instead of handing the runtime a path it cannot open
                throw new IllegalStateException("the model file " + spec.file()
                        + " is not readable (deleted or moved since the server started?)");
            }
            T handle = memory.load(spec.id(), spec.memoryMb(), failureIsFatal, init);
            reserved.addAndGet(spec.memoryMb());
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            LOG.info("model {} loaded in {} ms", spec.id(), took.toMillis());
            listener.loaded(spec.id(), took);
            return handle;
        } catch (RuntimeException e) {
            LOG.warn("model {} failed to load: {}", spec.id(), e.getMessage());
            listener.loadFailed(spec.id(), e.getMessage());
            throw e;
        }
    }

    /**
     * Loads a vision model's image encoder under the memory check like a slot (an encoder's memory taken
     * unchecked could leave too little for the next load).
     */
    @Override
    public <T> T loadEncoder(Supplier<T> init) {
        VisionLoad vision = spec.vision().orElseThrow(() -> new IllegalStateException("model " + spec.id()
                + " has no image encoder"));
        LOG.info("loading the image encoder of model {} from {}", spec.id(), vision.encoder());
        try {
            if (!Files.isReadable(vision.encoder())) {
                throw new IllegalStateException("the image encoder " + vision.encoder() + " is not readable");
            }
            long encoderMb = vision.memoryMb();
            T encoder = memory.load(spec.id() + " (its image encoder)", encoderMb, init);
            reserved.addAndGet(encoderMb);
            return encoder;
        } catch (RuntimeException e) {
            LOG.warn("the image encoder of model {} failed to load: {}", spec.id(), e.getMessage());
            listener.loadFailed(spec.id(), e.getMessage());
            if (e instanceof FailureException refused) {
                throw refused; // the memory check's answer reaches the requests as it is (503 insufficient_memory)
            }
            throw new IllegalStateException("its image encoder failed to load: " + e.getMessage(), e);
        }
    }

    @Override
    public ImageEmbeddingCache pictures() {
        return pictures;
    }

    @Override
    public EncoderListener encoderListener() {
        return listener;
    }
}
