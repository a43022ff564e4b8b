package io.rkllm.server.engine;

import io.rkllm.ffm.Model;
import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import java.nio.file.Files;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loaded models: loads on first use, switches models when more are requested than may stay
 * loaded (the least recently used idle one goes first), unloads after an idle time. Requests for a
 * model that is loading wait for it; a failed load is reported to every waiter.
 *
 * @param <S> the pipeline's state of each loaded model
 */
public final class ModelRegistry<S> implements AutoCloseable {
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

    private final ModelLoader runtime;
    private final int maxLoaded;
    private final int maxQueued;
    private final long maxMemory;
    private final NpuTurns turns = new NpuTurns();
    private final Duration idleUnload;
    private final Duration loadTimeout;
    private final Clock clock;
    private final Function<ModelLoad, S> stateFactory;
    private final Listener listener;
    private final Map<String, LoadedModel<S>> loaded = new LinkedHashMap<>();
    /** Workers being stopped: a new model loads only once their NPU memory is free. */
    private final List<CompletableFuture<Void>> stopping = new ArrayList<>();
    private final ScheduledExecutorService reaper;
    private boolean closed;

    public ModelRegistry(ModelLoader runtime, RegistrySettings settings, Clock clock,
                         Function<ModelLoad, S> stateFactory, Listener listener) {
        this.runtime = runtime;
        this.maxLoaded = settings.maxLoaded();
        this.maxQueued = settings.maxQueued();
        this.maxMemory = settings.maxMemoryBytes();
        this.idleUnload = settings.idleUnload();
        this.loadTimeout = settings.loadTimeout();
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

    /** The runtime's ABI, whether it samples per run, and its default sampling. */
    public RuntimeInfo runtimeInfo() {
        return runtime.runtime();
    }

    /**
     * The model, loaded (waiting for the load if needed), marked as just used. When no more models may
     * be loaded (their number, or their memory with this one), an idle one is unloaded to make room; when all
     * are busy, the least recently used one finishes the requests it has queued (it takes no new ones) and then
     * gives way, so that no queued request is cancelled by a switch. Waits at most {@code loadTimeout} for room.
     */
    public LoadedModel acquire(ModelLoad spec) {
        long deadline = System.nanoTime() + loadTimeout.toNanos();
        LoadedModel<S> model;
        synchronized (this) {
            while (true) {
                if (closed) {
                    throw new FailureException(new Failure.LoadFailed(spec.id(), "the server is shutting down"));
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
                    while (loaded.size() >= maxLoaded || !fits(spec)) {
                        Optional<LoadedModel<S>> idle = loaded.values().stream()
                                .filter(m -> m.isReady() && m.isIdle())
                                .min(Comparator.comparing(LoadedModel::lastUsed));
                        if (idle.isEmpty()) {
                            break;
                        }
                        stop(idle.get(), "switch to " + spec.id());
                    }
                    if (loaded.size() < maxLoaded && fits(spec)) {
                        model = start(spec);
                        loaded.put(spec.id(), model);
                        break;
                    }
                    loaded.values().stream().filter(m -> !m.isDraining() && m.isReady())
                            .min(Comparator.comparing(LoadedModel::lastUsed)).ifPresent(busy -> {
                                LOG.info("model {} finishes its queued requests, then gives way to {}",
                                        busy.id(), spec.id());
                                busy.startDraining();
                            });
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw loadFailed(spec.id(), "waited " + loadTimeout.toSeconds() + " s for room to load model "
                            + spec.id() + " (models.max_loaded " + maxLoaded + (maxMemory > 0 ? ", models.max_memory "
                            + maxMemory / (1024 * 1024) + " MB" : "") + ", every loaded model busy)");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, remaining);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw loadFailed(spec.id(), "interrupted while waiting to load model " + spec.id());
                }
            }
            model.touch(clock.instant());
        }
        awaitLoaded(model);
        return model;
    }

    /**
     * Whether {@code spec} fits in the memory limit beside the loaded models (each counted for the handles it has
     * loaded). A model alone always fits: whether it loads at all is the runtime's to say.
     */
    private boolean fits(ModelLoad spec) {
        if (maxMemory <= 0 || loaded.isEmpty()) {
            return true;
        }
        long used = 0;
        for (LoadedModel<S> m : loaded.values()) {
            used += m.load().memoryBytes() * Math.max(1, m.worker().loadedSlots());
        }
        return used + spec.memoryBytes() <= maxMemory;
    }

    /** A worker ran out of work: a draining model gives way now, and waiting loads look again. */
    private synchronized void idle(LoadedModel<S> model) {
        if (model.isDraining() && model.isIdle() && loaded.get(model.id()) == model) {
            stop(model, "switch");
        }
        notifyAll();
    }

    /** Removes and stops a model (it finishes nothing: callers pick idle models); holds the lock. */
    private void stop(LoadedModel<S> model, String why) {
        loaded.remove(model.id());
        stopping.add(model.worker().stopped());
        LOG.info("unloading model {} ({})", model.id(), why);
        model.worker().close();
        listener.unloaded(model.id(), "switch");
    }

    /** Unloads the model if loaded; running work ends first, queued work is cancelled. */
    public boolean unload(String id, String why) {
        LoadedModel<S> model;
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

    public synchronized Optional<LoadedModel<S>> find(String id) {
        return Optional.ofNullable(loaded.get(id));
    }

    public synchronized List<LoadedModel<S>> loadedModels() {
        return List.copyOf(loaded.values());
    }

    /** Stops every model: waiting work is cancelled, running generations get {@code grace} to end, then abort. */
    public void shutdown(Duration grace) {
        List<LoadedModel<S>> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(loaded.values());
            loaded.clear();
        }
        reaper.shutdownNow();
        for (LoadedModel<S> model : all) {
            model.worker().close();
        }
        long deadline = System.nanoTime() + grace.toNanos();
        for (LoadedModel<S> model : all) {
            try {
                model.worker().stopped().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                model.worker().cancelRunning(CancelReason.SHUTDOWN);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                LOG.warn("model {} stopped with an error", model.id(), e);
            }
        }
        for (LoadedModel<S> model : all) {
            model.worker().stopped().join();
        }
    }

    @Override
    public void close() {
        shutdown(Duration.ofSeconds(10));
    }

    private LoadedModel<S> start(ModelLoad spec) {
        Instant started = clock.instant();
        stopping.removeIf(CompletableFuture::isDone);
        List<CompletableFuture<Void>> freed = List.copyOf(stopping);
        AtomicReference<LoadedModel<S>> self = new AtomicReference<>();
        ModelWorker worker = new ModelWorker(spec.id(), spec.maxQueued() > 0 ? spec.maxQueued() : maxQueued,
                spec.slots(), () -> {
            // The NPU memory of a switched-out model must be free before the next one loads.
            freed.forEach(CompletableFuture::join);
            LOG.info("loading model {} from {}", spec.id(), spec.file());
            long t0 = System.nanoTime();
            try {
                if (!Files.isReadable(spec.file())) {
                    // say so plainly instead of handing the runtime a path it cannot open
                    throw new IllegalStateException("the model file " + spec.file()
                            + " is not readable (deleted or moved since the server started?)");
                }
                Model model = runtime.load(spec);
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
            LoadedModel<S> model = self.get();
            if (model != null) {
                idle(model);
            }
        }, turns);
        self.set(new LoadedModel<>(spec, worker, started, stateFactory.apply(spec)));
        return self.get();
    }

    private void awaitLoaded(LoadedModel<S> model) {
        try {
            model.worker().loaded().get(loadTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw loadFailed(model.id(), "model " + model.id() + " did not finish loading within "
                    + loadTimeout.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw loadFailed(model.id(), "interrupted while loading model " + model.id());
        } catch (ExecutionException e) {
            synchronized (this) {
                loaded.remove(model.id(), model);
            }
            Throwable cause = e.getCause();
            throw new FailureException(new Failure.LoadFailed(model.id(), "model " + model.id() + " failed to load: "
                    + (cause == null ? e.getMessage() : cause.getMessage())), cause);
        }
    }

    private static FailureException loadFailed(String id, String message) {
        return new FailureException(new Failure.LoadFailed(id, message));
    }

    private void unloadIdle() {
        try {
            Instant cutoff = clock.instant().minus(idleUnload);
            List<LoadedModel<S>> idle;
            synchronized (this) {
                idle = loaded.values().stream()
                        .filter(m -> m.isReady() && m.isIdle() && m.lastUsed().isBefore(cutoff)).toList();
                idle.forEach(m -> loaded.remove(m.id()));
            }
            for (LoadedModel<S> model : idle) {
                String why = "idle for " + idleUnload.toSeconds() + " s";
                model.worker().close();
                model.worker().stopped().join();
                listener.unloaded(model.id(), why);
                LOG.info("model {} unloaded ({})", model.id(), why);
            }
        } catch (RuntimeException e) {
            LOG.warn("idle unload failed", e);
        }
    }
}
