package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.ffm.Model;
import io.rkllm.ffm.RkllmRuntime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loaded models: loads on first use, switches models when more are requested than may stay
 * loaded (the least recently used idle one goes first), unloads after an idle time. Requests for a
 * model that is loading wait for it; a failed load is reported to every waiter.
 */
public final class ModelRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ModelRegistry.class);

    /** Loading, unloading and load failures, for metrics. */
    public interface Listener {
        default void loaded(String id, Duration took) {
        }

        default void unloaded(String id, String why) {
        }

        default void loadFailed(String id, String message) {
        }
    }

    private final RkllmRuntime runtime;
    private final int maxLoaded;
    private final int maxQueued;
    private final Duration idleUnload;
    private final Duration loadTimeout;
    private final Clock clock;
    private final java.util.function.Function<ModelSpec, Object> stateFactory;
    private final Listener listener;
    private final Map<String, LoadedModel> loaded = new LinkedHashMap<>();
    /** Workers being stopped: a new model loads only once their NPU memory is free. */
    private final List<CompletableFuture<Void>> stopping = new ArrayList<>();
    private final ScheduledExecutorService reaper;
    private boolean closed;

    public ModelRegistry(RkllmRuntime runtime, int maxLoaded, int maxQueued, Duration idleUnload,
                         Duration loadTimeout, Clock clock, java.util.function.Function<ModelSpec, Object> stateFactory,
                         Listener listener) {
        this.runtime = runtime;
        this.maxLoaded = maxLoaded;
        this.maxQueued = maxQueued;
        this.idleUnload = idleUnload;
        this.loadTimeout = loadTimeout;
        this.clock = clock;
        this.stateFactory = stateFactory;
        this.listener = listener;
        this.reaper = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("rkllm-idle-unload").daemon(true).factory());
        if (!idleUnload.isZero()) {
            long period = Math.max(1000, Math.min(idleUnload.toMillis() / 4, 30_000));
            reaper.scheduleWithFixedDelay(this::unloadIdle, period, period, TimeUnit.MILLISECONDS);
        }
    }

    public RkllmRuntime runtime() {
        return runtime;
    }

    /**
     * The model, loaded (waiting for the load if needed), marked as just used. When no more models may
     * be loaded, an idle one is unloaded to make room; when all are busy, the least recently used one
     * finishes the requests it has queued (it takes no new ones) and then gives way, so that no
     * queued request is cancelled by a switch. Waits at most {@code loadTimeout} for room.
     */
    public LoadedModel acquire(ModelSpec spec) {
        long deadline = System.nanoTime() + loadTimeout.toNanos();
        LoadedModel model;
        synchronized (this) {
            while (true) {
                if (closed) {
                    throw new ModelLoadException("the server is shutting down");
                }
                model = loaded.get(spec.id());
                if (model != null && model.worker().loaded().isCompletedExceptionally()) {
                    loaded.remove(spec.id());
                    model = null;
                }
                if (model != null && !model.isDraining()) {
                    break;
                }
                if (model == null) {
                    while (loaded.size() >= maxLoaded) {
                        Optional<LoadedModel> idle = loaded.values().stream()
                                .filter(m -> m.isReady() && m.isIdle())
                                .min(Comparator.comparing(LoadedModel::lastUsed));
                        if (idle.isEmpty()) {
                            break;
                        }
                        stop(idle.get(), "switch to " + spec.id());
                    }
                    if (loaded.size() < maxLoaded) {
                        model = start(spec);
                        loaded.put(spec.id(), model);
                        break;
                    }
                    loaded.values().stream().filter(m -> !m.isDraining() && m.isReady())
                            .min(Comparator.comparing(LoadedModel::lastUsed)).ifPresent(busy -> {
                                LOG.info("model {} finishes its queued requests, then gives way to {}",
                                        busy.spec().id(), spec.id());
                                busy.startDraining();
                            });
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new ModelLoadException("waited " + loadTimeout.toSeconds() + " s for room to load model "
                            + spec.id() + " (models.max_loaded " + maxLoaded + ", every loaded model busy)");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, remaining);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ModelLoadException("interrupted while waiting to load model " + spec.id());
                }
            }
            model.touch(clock.instant());
        }
        awaitLoaded(model);
        return model;
    }

    /** A worker ran out of work: a draining model gives way now, and waiting loads look again. */
    private synchronized void idle(LoadedModel model) {
        if (model.isDraining() && model.isIdle() && loaded.get(model.spec().id()) == model) {
            stop(model, "switch");
        }
        notifyAll();
    }

    /** Removes and stops a model (it finishes nothing: callers pick idle models); holds the lock. */
    private void stop(LoadedModel model, String why) {
        loaded.remove(model.spec().id());
        stopping.add(model.worker().stopped());
        LOG.info("unloading model {} ({})", model.spec().id(), why);
        model.worker().close();
        listener.unloaded(model.spec().id(), "switch");
    }

    /** Starts loading without waiting; the returned future completes when the model is ready. */
    public CompletableFuture<List<Model>> preload(ModelSpec spec) {
        return CompletableFuture.supplyAsync(() -> acquire(spec).worker().loaded().join(),
                Executors.newVirtualThreadPerTaskExecutor());
    }

    /** Unloads the model if loaded; running work ends first, queued work is cancelled. */
    public boolean unload(String id, String why) {
        LoadedModel model;
        synchronized (this) {
            model = loaded.remove(id);
        }
        if (model == null) {
            return false;
        }
        model.worker().close();
        model.worker().stopped().join();
        listener.unloaded(id, why);
        LOG.info("model {} unloaded ({})", id, why);
        return true;
    }

    public synchronized Optional<LoadedModel> find(String id) {
        return Optional.ofNullable(loaded.get(id));
    }

    public synchronized List<LoadedModel> loadedModels() {
        return List.copyOf(loaded.values());
    }

    /** Stops every model: waiting work is cancelled, running generations get {@code grace} to end, then abort. */
    public void shutdown(Duration grace) {
        List<LoadedModel> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(loaded.values());
            loaded.clear();
        }
        reaper.shutdownNow();
        for (LoadedModel model : all) {
            model.worker().close();
        }
        long deadline = System.nanoTime() + grace.toNanos();
        for (LoadedModel model : all) {
            try {
                model.worker().stopped().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                model.worker().cancelRunning(CancelReason.SHUTDOWN);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                LOG.warn("model {} stopped with an error", model.spec().id(), e);
            }
        }
        for (LoadedModel model : all) {
            model.worker().stopped().join();
        }
    }

    @Override
    public void close() {
        shutdown(Duration.ofSeconds(10));
    }

    private LoadedModel start(ModelSpec spec) {
        Instant started = clock.instant();
        stopping.removeIf(CompletableFuture::isDone);
        List<CompletableFuture<Void>> freed = List.copyOf(stopping);
        LoadedModel[] self = new LoadedModel[1];
        ModelWorker worker = new ModelWorker(spec.id(), maxQueued, spec.slots(), () -> {
            // The NPU memory of a switched-out model must be free before the next one loads.
            freed.forEach(CompletableFuture::join);
            LOG.info("loading model {} from {}", spec.id(), spec.params().modelPath());
            long t0 = System.nanoTime();
            try {
                if (!java.nio.file.Files.isReadable(spec.params().modelPath())) {
                    // say so plainly instead of handing the runtime a path it cannot open
                    throw new ModelLoadException("the model file " + spec.params().modelPath()
                            + " is not readable (deleted or moved since the server started?)");
                }
                Model model = runtime.load(spec.params());
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                LOG.info("model {} loaded in {} ms", spec.id(), took.toMillis());
                listener.loaded(spec.id(), took);
                return model;
            } catch (RuntimeException e) {
                LOG.warn("model {} failed to load: {}", spec.id(), e.getMessage());
                listener.loadFailed(spec.id(), e.getMessage());
                throw e;
            }
        }, () -> {
            LoadedModel model = self[0];
            if (model != null) {
                idle(model);
            }
        });
        self[0] = new LoadedModel(spec, worker, started, stateFactory.apply(spec));
        return self[0];
    }

    private void awaitLoaded(LoadedModel model) {
        try {
            model.worker().loaded().get(loadTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new ModelLoadException("model " + model.spec().id() + " did not finish loading within "
                    + loadTimeout.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ModelLoadException("interrupted while loading model " + model.spec().id());
        } catch (ExecutionException e) {
            synchronized (this) {
                loaded.remove(model.spec().id(), model);
            }
            Throwable cause = e.getCause();
            throw new ModelLoadException("model " + model.spec().id() + " failed to load: "
                    + (cause == null ? e.getMessage() : cause.getMessage()), cause);
        }
    }

    private void unloadIdle() {
        try {
            Instant cutoff = clock.instant().minus(idleUnload);
            List<LoadedModel> idle;
            synchronized (this) {
                idle = loaded.values().stream()
                        .filter(m -> m.isReady() && m.isIdle() && m.lastUsed().isBefore(cutoff)).toList();
                idle.forEach(m -> loaded.remove(m.spec().id()));
            }
            for (LoadedModel model : idle) {
                String why = "idle for " + idleUnload.toSeconds() + " s";
                model.worker().close();
                model.worker().stopped().join();
                listener.unloaded(model.spec().id(), why);
                LOG.info("model {} unloaded ({})", model.spec().id(), why);
            }
        } catch (RuntimeException e) {
            LOG.warn("idle unload failed", e);
        }
    }
}
