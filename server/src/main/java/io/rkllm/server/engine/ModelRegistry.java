package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.AutoSetting;
import io.rkllm.server.engine.contract.Backend;
import io.rkllm.server.engine.contract.ImageEmbeddingCache;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.RuntimeInfo;
import java.nio.file.Path;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loaded models: loads on first use, switches models when more are requested than may stay
 * loaded (the least recently used idle one goes first), unloads after an idle time. Requests for a
 * model that is loading wait for it; a failed load is reported to every waiter.

 */
public final class ModelRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ModelRegistry.class);
    private static final long MIB = 1L << 20;

    private final Backends backends;
    private final int maxLoaded;
    private final int maxQueued;
    private final long maxMemory;
    private final GenerationsFirst turns = new GenerationsFirst();
    private final Duration idleUnload;
    private final Duration loadTimeout;
    private final Clock clock;
    private final ModelListener listener;
    private final Map<String, LoadedModel> loaded = new LinkedHashMap<>();
    /** Models being stopped: a new model loads only once their NPU memory is free. */
    private final List<LoadedModel> stopping = new ArrayList<>();
    private final MemoryBudget memory;
    private final ScheduledExecutorService reaper;
    private final ImageEmbeddingCache imageEmbeddings;
    private boolean closed;

    /** @param backends the engines models load with, chosen per model file */
    public ModelRegistry(Backends backends, RegistrySettings settings, Clock clock, ModelListener listener) {
        this.backends = backends;
        this.maxLoaded = settings.maxLoaded();
        this.maxQueued = settings.maxQueued();
        this.maxMemory = settings.maxMemoryBytes();
        this.idleUnload = settings.idleUnload();
        this.loadTimeout = settings.loadTimeout();
        // auto: on when any backend's failed load takes the process down (RKLLM runtime 1.3)
        this.memory = new MemoryBudget(AutoSetting.on(settings.memoryCheck(), backends.available().values()
                .stream().anyMatch(Backend::loadFailureIsFatal)),
                settings.memoryBudgetMb(), () -> MemoryBudget.available(Path.of("/proc/meminfo")));
        this.clock = clock;
        this.listener = listener;
        this.imageEmbeddings = new ImageEmbeddingCache(settings.imageEmbeddingCacheBytes());
        this.reaper = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("rkllm-idle-unload").daemon(true).factory());
        if (!idleUnload.isZero()) {
            long period = Math.max(1000, Math.min(idleUnload.toMillis() / 4, 30_000));
            reaper.scheduleWithFixedDelay(this::unloadIdle, period, period, TimeUnit.MILLISECONDS);
        }
    }

    /** Image embeddings by model and picture. */
    public ImageEmbeddingCache imageEmbeddings() {
        return imageEmbeddings;
    }

    /**
     * The runtime of the engine a model loads with: its name and ABI, whether it samples per run, its default sampling.
     *
     * @throws FailureException {@link Failure.LoadFailed} when no available backend runs it
     */
    public RuntimeInfo runtimeFor(String id, String engine) {
        return backends.forModel(id, engine).info();
    }

    /** The runtime of the first available backend, for {@code /health}; empty when there is none. */
    public Optional<RuntimeInfo> primaryRuntime() {
        return backends.primary().map(Backend::info);
    }

    /**
     * The model, loaded (waiting for the load if needed), marked as just used. When no more models may
     * be loaded (their number, or their memory with this one), an idle one is unloaded to make room; when all
     * are busy, the least recently used one finishes the requests it has queued (it takes no new ones) and then
     * gives way, so that no queued request is cancelled by a switch. Waits at most {@code loadTimeout} for room.
     * {@code whenChosen} runs under the lock once the model is chosen: a place taken in its queue there keeps any
     * other load from unloading it before its caller has queued (a switch would otherwise find it idle).
     */
    public LoadedModel acquire(ModelLoad spec, Consumer<LoadedModel> whenChosen) {
        // a model no available backend runs fails now, before any other model gives way to it
        backends.forModel(spec.id(), spec.engine());
        long deadline = System.nanoTime() + loadTimeout.toNanos();
        LoadedModel model;
        synchronized (this) {
            while (true) {
                if (closed) {
                    throw new FailureException(new Failure.Cancelled(CancelReason.SHUTDOWN,
                            "the server is shutting down"));
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
                    // the first slot (and a vision model's encoder) loads now; another slot only when a
                    // conversation needs it, checked then
                    long need = spec.firstLoadMb();
                    int limit = room(spec);
                    if (!memory.fits(need + loadingMb(), releasingMb() + heldMb())) {
                        // even with every other model unloaded it would not fit: unload nothing, say so now
                        Failure refused = memory.insufficient(spec.id(), need,
                                Math.max(0, memory.freeMb() + releasingMb() + heldMb() - loadingMb()),
                                backends.forModel(spec.id(), spec.engine()).loadFailureIsFatal());
                        LOG.warn("not loading: {}", refused.message());
                        throw new FailureException(refused);
                    }
                    while (loaded.size() >= limit || !memory.fits(need + loadingMb(), releasingMb())
                            || !withinMaxMemory(need)) {
                        Optional<LoadedModel> idle = loaded.values().stream()
                                .filter(m -> m.isReady() && m.isIdle())
                                .min(Comparator.comparing(LoadedModel::lastUsed));
                        if (idle.isEmpty()) {
                            break;
                        }
                        stop(idle.get(), loaded.size() >= limit ? "switch to " + spec.id()
                                : "to make room in memory for " + spec.id());
                    }
                    if (loaded.size() < limit && memory.fits(need + loadingMb(), releasingMb())
                            && withinMaxMemory(need)) {
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
                            + maxMemory / MIB + " MB" : "") + ", every loaded model busy)");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, remaining);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw loadFailed(spec.id(), "interrupted while waiting to load model " + spec.id());
                }
            }
            whenChosen.accept(model);
            model.touch(clock.instant()); // a request refused (its queue full) did not use it
        }
        awaitLoaded(model);
        return model;
    }

    /**
     * How many models may be loaded once {@code spec} is: {@code maxLoaded}, or one when it or a loaded model takes
     * the NPU alone (a vision model, unless co-residency is configured). Holds the lock.
     */
    private int room(ModelLoad spec) {
        return spec.exclusive() || loaded.values().stream().anyMatch(m -> m.load().exclusive()) ? 1 : maxLoaded;
    }

    /**
     * Whether {@code needMb} more stays within {@code models.max_memory} beside the loaded models (each counted for
     * what its loaded slots hold, by the same estimate as the memory check). A model alone always fits: whether it
     * loads at all is the memory check's and the runtime's to say. Holds the lock.
     */
    private boolean withinMaxMemory(long needMb) {
        return maxMemory <= 0 || loaded.isEmpty() || (heldMb() + needMb) * MIB <= maxMemory;
    }

    /** A worker ran out of work: a draining model gives way now, and waiting loads look again. */
    private synchronized void idle(LoadedModel model) {
        if (model.isDraining() && model.isIdle() && loaded.get(model.id()) == model) {
            stop(model, "switch");
        }
        notifyAll();
    }

    /**
     * What the loaded models hold, a model still loading its first slot (and encoder) counted with it; holds the
     * lock.
     */
    private long heldMb() {
        return loaded.values().stream().mapToLong(m -> Math.max(m.memoryMb(), m.load().firstLoadMb())).sum();
    }

    /** What models still loading will take, which the memory reading does not show yet; holds the lock. */
    private long loadingMb() {
        return loaded.values().stream().filter(m -> !m.worker().loaded().isDone())
                .mapToLong(m -> Math.max(0, m.load().firstLoadMb() - m.memoryMb())).sum();
    }

    /**
     * Before another slot of a loaded model (a second conversation): refused, so the model goes on with the slots
     * it has, when it would take the loaded models beyond {@code models.max_memory}. Nothing is unloaded for it: a
     * slot is worth less than another model staying loaded. The memory check follows in its init.
     */
    private synchronized void checkAnotherSlot(ModelLoad spec) {
        if (maxMemory > 0 && (heldMb() + spec.memoryMb()) * MIB > maxMemory) {
            throw new IllegalStateException("another slot of model " + spec.id() + " (about " + spec.memoryMb()
                    + " MB) would take the loaded models beyond models.max_memory " + maxMemory / MIB + " MB ("
                    + heldMb() + " MB held)");
        }
    }

    /** What models being unloaded still hold and will free before the next load; holds the lock. */
    private long releasingMb() {
        stopping.removeIf(m -> m.released().isDone());
        return stopping.stream().mapToLong(LoadedModel::memoryMb).sum();
    }

    /** Removes and stops a model (it finishes nothing: callers pick idle models); holds the lock. */
    private void stop(LoadedModel model, String why) {
        loaded.remove(model.id());
        stopping.add(model);
        LOG.info("unloading model {} ({})", model.id(), why);
        model.worker().close();
        listener.unloaded(model.id(), "switch");
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

    /**
     * Takes a loaded model out of use without cutting anything short (its file changed or went away while the server
     * runs): an idle one is unloaded now, a busy one takes no new requests, finishes its queue and then unloads; the
     * next request for its id loads it again, from the file as it is then.
     */
    public synchronized void retire(String id, String why) {
        LoadedModel model = loaded.get(id);
        if (model == null) {
            return;
        }
        if (model.isReady() && model.isIdle()) {
            stop(model, why);
            notifyAll();
        } else if (!model.isDraining()) {
            LOG.info("model {} finishes its queued requests, then unloads ({})", id, why);
            model.startDraining();
        }
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
            model.worker().close(CancelReason.SHUTDOWN);
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
                LOG.warn("model {} stopped with an error", model.id(), e);
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

    private LoadedModel start(ModelLoad spec) {
        Backend backend = backends.forModel(spec.id(), spec.engine());
        Instant started = clock.instant();
        stopping.removeIf(m -> m.released().isDone());
        List<CompletableFuture<Void>> freed = stopping.stream().map(LoadedModel::released).toList();
        AtomicReference<LoadedModel> self = new AtomicReference<>();
        AtomicLong reserved = new AtomicLong();
        ModelLoading loading = new ModelLoading(spec, freed, reserved, memory, backend.loadFailureIsFatal(),
                this::checkAnotherSlot, listener, imageEmbeddings);
        ModelWorker worker = new ModelWorker(spec.id(), backend.info().name(),
                spec.maxQueued() > 0 ? spec.maxQueued() : maxQueued, () -> backend.load(spec, loading), turns, () -> {
            LoadedModel model = self.get();
            if (model != null) {
                idle(model);
            }
        });
        CompletableFuture<Void> released = worker.stopped().thenRun(() -> memory.release(reserved.get()));
        self.set(new LoadedModel(spec, worker, started, reserved, released));
        return self.get();
    }

    private void awaitLoaded(LoadedModel model) {
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
            throw ModelWorker.loadFailure(model.id(), e.getCause() == null ? e : e.getCause());
        }
    }

    private static FailureException loadFailed(String id, String message) {
        return new FailureException(new Failure.LoadFailed(id, message));
    }

    private void unloadIdle() {
        try {
            Instant cutoff = clock.instant().minus(idleUnload);
            List<LoadedModel> idle;
            synchronized (this) {
                idle = loaded.values().stream()
                        .filter(m -> m.isReady() && m.isIdle() && m.lastUsed().isBefore(cutoff)).toList();
                idle.forEach(m -> loaded.remove(m.id()));
            }
            for (LoadedModel model : idle) {
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
