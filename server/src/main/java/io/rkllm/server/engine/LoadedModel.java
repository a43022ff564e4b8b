package io.rkllm.server.engine;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A model whose worker exists (loading or loaded), with what the pipeline keeps per handle: the
 * state object the planners read and write on the worker thread (e.g. what the KV cache holds).
 */
public final class LoadedModel {
    private final ModelSpec spec;
    private final ModelWorker worker;
    private final Instant loadStarted;
    private final Object pipelineState;
    private final AtomicReference<Instant> lastUsed;
    private volatile boolean draining;

    LoadedModel(ModelSpec spec, ModelWorker worker, Instant now, Object pipelineState) {
        this.spec = spec;
        this.worker = worker;
        this.loadStarted = now;
        this.pipelineState = pipelineState;
        this.lastUsed = new AtomicReference<>(now);
    }

    public ModelSpec spec() {
        return spec;
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

    /** The pipeline's per-handle state, created by the registry's state factory; touched only on the worker. */
    public <T> T state(Class<T> type) {
        return type.cast(pipelineState);
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

    /** No generation queued or running. */
    public boolean isIdle() {
        return worker.queued() == 0 && !worker.busy();
    }
}
