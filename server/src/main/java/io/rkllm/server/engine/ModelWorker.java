package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.cache.CacheContents;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loaded model: a dedicated platform thread that makes every native call for it (load, runs, cache operations,
 * destroy) in order, through its {@link BackendModel}, fed by a priority queue that is FIFO within each priority
 * class. A platform thread, not a virtual one: it blocks inside native code for seconds at a time. Route threads
 * only reserve places, submit jobs, read events and cancel.
 */
public final class ModelWorker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ModelWorker.class);

    private final String name;
    private final String runtime;
    private final int maxQueued;
    private final PriorityBlockingQueue<Job> queue = new PriorityBlockingQueue<>();
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicInteger queuedGenerations = new AtomicInteger();
    private final CompletableFuture<Void> loaded = new CompletableFuture<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final Runnable onIdle;
    private final NpuTurns turns;
    private volatile boolean closing;
    private volatile boolean busy;
    private volatile Job running;
    private volatile int loadedSlots;
    private volatile EncoderInfo encoder;
    /** The loaded model, published for {@link #held()}; null until it has loaded. */
    private volatile BackendModel model;

    /**
     * Starts the worker thread, which begins by loading the model with {@code loader} (its backend's load: the first
     * slot, a vision model's encoder; other slots load when a run needs them; runs still go one at a time). Every run
     * waits its turn in {@code turns} (the order of generations and embeddings on the NPU), shared by the registry's
     * workers.
     *
     * @param runtime the backend's runtime as a user knows it, for messages
     * @param onIdle called on the worker thread whenever it has nothing queued or running any more
     */
    ModelWorker(String name, String runtime, int maxQueued, Supplier<BackendModel> loader, NpuTurns turns,
                Runnable onIdle) {
        this.name = name;
        this.runtime = runtime;
        this.maxQueued = maxQueued;
        this.onIdle = onIdle;
        this.turns = turns;
        Thread.ofPlatform().name("rkllm-model-" + name).start(() -> loop(loader));
    }

    public String name() {
        return name;
    }

    NpuTurns turns() {
        return turns;
    }

    /** Completes once the model's load returned, or exceptionally when it failed. */
    CompletableFuture<Void> loaded() {
        return loaded;
    }

    /** The image encoder, once loaded (vision models only). */
    public Optional<EncoderInfo> encoder() {
        return Optional.ofNullable(encoder);
    }

    /** What the model's caches hold now; nothing while it loads. */
    public CacheContents held() {
        BackendModel loadedModel = model;
        return loadedModel == null ? CacheContents.NOTHING : loadedModel.held();
    }

    /** Slots loaded so far. */
    public int loadedSlots() {
        return loadedSlots;
    }

    /** Completes when the worker thread has destroyed the model and ended. */
    CompletableFuture<Void> stopped() {
        return stopped;
    }

    public int queued() {
        return queuedGenerations.get();
    }

    public boolean busy() {
        return busy;
    }

    /**
     * Takes a place in the queue without queueing work yet.
     *
     * @throws FailureException {@link Failure.QueueFull} when {@code maxQueued} generations already wait,
     *                          {@link Failure.ModelUnloading} when the model is being unloaded
     */
    public Reservation reserve(Priority priority) {
        if (closing) {
            throw new FailureException(new Failure.ModelUnloading(name, "model " + name + " is being unloaded"));
        }
        if (queuedGenerations.incrementAndGet() > maxQueued) {
            queuedGenerations.decrementAndGet();
            throw new FailureException(new Failure.QueueFull(name, maxQueued, "the queue of model " + name
                    + " is full (" + maxQueued + " requests waiting); retry later"));
        }
        return new Reservation(this, priority, sequence.getAndIncrement());
    }

    Generation enqueue(GenerationJob job) {
        synchronized (queue) {
            if (stopped.isDone()) {
                queuedGenerations.decrementAndGet();
                job.generation.emit(new GenerationEvent.Failed(new Failure.Cancelled(CancelReason.UNLOADED,
                        "model " + name + " was unloaded")));
                return job.generation;
            }
            // before it can be taken: the worker releases the turn when the job ends
            job.holdTurn(turns.generationQueued());
            queue.add(job);
        }
        if (!job.background && running instanceof GenerationJob current && current.background) {
            // background work (Open WebUI's tags, follow-ups) never delays a chat: it yields the NPU
            current.generation.cancel(CancelReason.PREEMPTED);
        }
        return job.generation;
    }

    Embedding enqueue(EmbeddingJob job) {
        synchronized (queue) {
            if (stopped.isDone()) {
                queuedGenerations.decrementAndGet();
                job.embedding.emit(new EmbeddingEvent.Failed(new Failure.Cancelled(CancelReason.UNLOADED,
                        "model " + name + " was unloaded")));
                return job.embedding;
            }
            queue.add(job);
        }
        return job.embedding;
    }

    void released() {
        queuedGenerations.decrementAndGet();
    }

    /** A queued job left the queue (to run, or failed). */
    void taken(Job job) {
        queuedGenerations.decrementAndGet();
    }

    void running(Job job) {
        running = job;
    }

    boolean dequeue(Job job) {
        if (queue.remove(job)) {
            queuedGenerations.decrementAndGet();
            if (job instanceof GenerationJob generation) {
                generation.releaseTurn();
            }
            return true;
        }
        return false;
    }

    /** Stops taking work, cancels what waits, lets a running generation end, then destroys the model. */
    @Override
    public void close() {
        closing = true;
        for (Job job : queue.toArray(Job[]::new)) {
            job.cancel(CancelReason.UNLOADED);
        }
        queue.add(new StopJob(sequence.getAndIncrement()));
    }

    /** Cancels the job running now, if any (shutdown deadline, forced unload). */
    void cancelRunning(CancelReason reason) {
        Job job = running;
        if (job != null) {
            job.cancel(reason);
        }
    }

    String runtime() {
        return runtime;
    }

    private void loop(Supplier<BackendModel> loader) {
        BackendModel model;
        try {
            model = loader.get();
        } catch (Throwable t) {
            loaded.completeExceptionally(t);
            end(t.getMessage());
            return;
        }
        loadedSlots = model.loadedSlots();
        encoder = model.encoder().orElse(null);
        this.model = model;
        loaded.complete(null);
        notifyIdle();
        try {
            while (true) {
                Job job = queue.take();
                if (job instanceof StopJob) {
                    break;
                }
                busy = true;
                try {
                    job.execute(model);
                } catch (Throwable t) {
                    LOG.error("model {}: job failed", name, t);
                } finally {
                    busy = false;
                    loadedSlots = model.loadedSlots();
                }
                if (queuedGenerations.get() == 0) {
                    notifyIdle();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            model.close();
            end("model " + name + " was unloaded");
        }
    }

    /** No more work: what is still queued fails with {@code message}. */
    private void end(String message) {
        closing = true;
        synchronized (queue) {
            Job job;
            while ((job = queue.poll()) != null) {
                job.fail(message);
            }
            stopped.complete(null);
        }
    }

    private void notifyIdle() {
        try {
            onIdle.run();
        } catch (RuntimeException e) {
            LOG.warn("model {}: idle listener failed", name, e);
        }
    }
}
