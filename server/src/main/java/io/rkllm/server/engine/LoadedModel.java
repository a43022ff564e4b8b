package io.rkllm.server.engine;

import io.rkllm.server.engine.contract.cache.CacheContents;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.ModelLoad;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A model whose worker exists (loading or loaded).
 */
public final class LoadedModel {
    private final ModelLoad load;
    private final ModelWorker worker;
    private final Instant loadStarted;
    private final AtomicReference<Instant> lastUsed;
    private volatile boolean draining;
    private final AtomicLong memoryMb;
    private final CompletableFuture<Void> released;

    /**
     * @param memoryMb what its loaded slots hold, as the memory check counted them
     * @param released completes when the worker stopped and its memory is counted as free again
     */
    LoadedModel(ModelLoad load, ModelWorker worker, Instant now, AtomicLong memoryMb,
                CompletableFuture<Void> released) {
        this.memoryMb = memoryMb;
        this.released = released;
        this.load = load;
        this.worker = worker;
        this.loadStarted = now;
        this.lastUsed = new AtomicReference<>(now);
    }

    public String id() {
        return load.id();
    }

    public ModelLoad load() {
        return load;
    }

    public ModelWorker worker() {
        return worker;
    }

    public Instant loadStarted() {
        return loadStarted;
    }

    public Instant lastUsed() {
        return lastUsed.get();
    }

    void touch(Instant now) {
        lastUsed.set(now);
    }

    /** A vision model's image encoder, once loaded: the picture size it takes and its tokens per picture. */
    public Optional<EncoderInfo> encoder() {
        return worker.encoder();
    }

    /** What the model's KV caches hold now (nothing while it loads); read by requests being prepared. */
    public CacheContents held() {
        return worker.held();
    }

    /** What its loaded slots hold (0 while the first still loads), in MB. */
    long memoryMb() {
        return memoryMb.get();
    }

    /** Completes when the model is unloaded and its memory is counted as free. */
    CompletableFuture<Void> released() {
        return released;
    }

    /** Giving way to another model: it takes no new requests and unloads once its queue is empty. */
    public boolean isDraining() {
        return draining;
    }

    void startDraining() {
        draining = true;
    }

    public boolean isReady() {
        return worker.loaded().isDone() && !worker.loaded().isCompletedExceptionally();
    }

    /** No request queued (or with a place reserved) or running. */
    public boolean isIdle() {
        return worker.idle();
    }
}
