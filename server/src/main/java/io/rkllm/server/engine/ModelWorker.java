package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.cache.CacheContents;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.ModelTokenizer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loaded model: a dedicated platform thread ({@code rkllm-model-<id>}) that loads the model, takes its jobs
 * from a priority queue that is FIFO within each priority class ({@link JobQueue}), runs every job that is not a
 * generation (an embedding request: its setup and its runs) and finally closes the model, all through its
 * {@link BackendModel}. Generations run on this thread too, one at a time, unless the loaded model declares that it
 * runs several at once ({@link BackendModel#parallelGenerations()} N &gt; 1): then up to N run side by side, each on
 * a platform thread of the model's own ({@code rkllm-model-<id>-gen-<k>}), and this thread only starts them. Platform
 * threads, not virtual ones: they block inside native code for seconds at a time. Route threads only reserve
 * places, submit jobs, read events and cancel.
 */
public final class ModelWorker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ModelWorker.class);

    private final String name;
    private final int maxQueued;
    private final JobQueue jobs = new JobQueue();
    private final AtomicLong sequence = new AtomicLong();
    private final CompletableFuture<Void> loaded = new CompletableFuture<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final Runnable onIdle;
    private final ModelIntake intake;
    private volatile boolean closing;
    private volatile int loadedSlots;
    private volatile EncoderInfo encoder;
    /** The loaded model, published for {@link #held()}; null until it has loaded. */
    private volatile BackendModel model;

    /**
     * Starts the worker thread, which begins by loading the model with {@code loader} (its backend's load: the first
     * slot, a vision model's encoder; other slots load when a run needs them). Every run waits its turn in
     * {@code turns} (generations before embeddings), shared by the registry's workers.
     *
     * @param runtime the backend's runtime as a user knows it, for messages
     * @param onIdle called on the worker thread whenever it has nothing queued or running any more
     */
    ModelWorker(String name, String runtime, int maxQueued, Supplier<BackendModel> loader, GenerationsFirst turns,
                Runnable onIdle) {
        this.name = name;
        this.maxQueued = maxQueued;
        this.onIdle = onIdle;
        this.intake = new ModelIntake(name, runtime, turns, jobs);
        Thread.ofPlatform().name("rkllm-model-" + name).start(() -> loop(loader));
    }

    public String name() {
        return name;
    }

    /** Where its work comes in (tests submit jobs through it). */
    ModelIntake intake() {
        return intake;
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

    /**
     * The text the model reads for {@code prompt} when its engine renders it, once the model has loaded; empty for
     * an engine whose runtime builds it.
     *
     * @throws FailureException {@link Failure.LoadFailed} when the load failed or took longer than {@code wait}
     */
    public Optional<String> promptText(ChatPrompt prompt, Duration wait) {
        awaitLoad(wait);
        BackendModel loadedModel = model;
        return loadedModel == null ? Optional.empty() : loadedModel.promptText(prompt);
    }

    /**
     * The model's own tokenizer once it has loaded, asked from the caller's thread; empty for a runtime without one.
     *
     * @throws FailureException {@link Failure.LoadFailed} when the load failed or took longer than {@code wait}
     */
    public Optional<ModelTokenizer> tokenizer(Duration wait) {
        awaitLoad(wait);
        BackendModel loadedModel = model;
        return loadedModel == null ? Optional.empty() : loadedModel.tokenizer();
    }

    private void awaitLoad(Duration wait) {
        try {
            loaded.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FailureException(new Failure.LoadFailed(name, "interrupted"));
        } catch (ExecutionException | TimeoutException e) {
            throw new FailureException(new Failure.LoadFailed(name, e instanceof TimeoutException
                    ? "still loading after " + wait.toSeconds() + " s" : String.valueOf(e.getCause().getMessage())));
        }
    }

    /** What a request hears of a model's failed load: the failure it named, else that it failed and why. */
    static FailureException loadFailure(String name, Throwable cause) {
        return cause instanceof FailureException f ? new FailureException(f.failure(), f)
                : new FailureException(new Failure.LoadFailed(name, "model " + name + " failed to load: "
                + (cause == null ? "unknown" : cause.getMessage())), cause);
    }

    /** Slots loaded so far. */
    public int loadedSlots() {
        return loadedSlots;
    }

    /** Completes when the worker thread has destroyed the model and ended. */
    CompletableFuture<Void> stopped() {
        return stopped;
    }

    /** Requests waiting: places reserved or queued, not yet running. */
    public int queued() {
        return jobs.waiting();
    }

    /** Jobs running now: up to {@link #parallelGenerations()} generations, or one embedding request. */
    public int running() {
        return jobs.runningCount();
    }

    /** How many generations it runs at once: what the loaded model declared (1 until it has loaded). */
    public int parallelGenerations() {
        return jobs.parallel();
    }

    /** Nothing queued, reserved or running: it may be unloaded. */
    boolean idle() {
        return jobs.idle();
    }

    /**
     * Takes a place in the queue without queueing work yet.
     *
     * @throws FailureException {@link Failure.QueueFull} when {@code maxQueued} requests already wait beyond the
     *                          generations that could start now, {@link Failure.ModelUnloading} when the model is
     *                          being unloaded, its load's failure when it failed to load
     */
    public Reservation reserve(Priority priority) {
        if (closing && loaded.isCompletedExceptionally()) {
            // its load failed (a place is taken as the model is chosen, before its load ends): that is the answer,
            // not an unload to retry after
            throw loadFailure(name, loaded.exceptionNow());
        }
        if (closing) {
            throw new FailureException(new Failure.ModelUnloading(name, "model " + name + " is being unloaded"));
        }
        if (!jobs.reserve(maxQueued)) {
            throw new FailureException(new Failure.QueueFull(name, maxQueued, "the queue of model " + name
                    + " is full (" + maxQueued + " requests waiting); retry later"));
        }
        return new Reservation(intake, priority, sequence.getAndIncrement());
    }

    /** Stops taking work, cancels what waits, lets the running jobs end, then destroys the model. */
    @Override
    public void close() {
        close(CancelReason.UNLOADED);
    }

    /**
     * {@link #close()}, what waits cancelled for {@code reason}: {@code UNLOADED} tells a client to retry (the model
     * loads again), {@code SHUTDOWN} that the server is going away.
     */
    void close(CancelReason reason) {
        closing = true;
        for (Job<?> job : jobs.queued()) {
            job.cancel(reason);
        }
        jobs.offer(new StopJob(sequence.getAndIncrement()), () -> { });
    }

    /** Cancels the jobs running now, if any (shutdown deadline, forced unload). */
    void cancelRunning(CancelReason reason) {
        for (Job<?> job : jobs.running()) {
            job.cancel(reason);
        }
    }

    private void loop(Supplier<BackendModel> loader) {
        BackendModel model;
        int parallel;
        try {
            model = loader.get();
        } catch (Throwable t) {
            loaded.completeExceptionally(t);
            end(t.getMessage(), false);
            return;
        }
        try {
            parallel = Math.max(1, model.parallelGenerations());
            loadedSlots = model.loadedSlots();
            encoder = model.encoder().orElse(null);
        } catch (RuntimeException e) {
            // a loaded model that cannot say what it is: closed again, its load failed
            try {
                model.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            loaded.completeExceptionally(e);
            end(e.getMessage(), false);
            return;
        }
        jobs.parallel(parallel);
        this.model = model;
        // N > 1: a thread per generation slot; the executor never queues, the JobQueue starts at most N
        ExecutorService generations = parallel == 1 ? null : Executors.newFixedThreadPool(parallel,
                Thread.ofPlatform().name("rkllm-model-" + name + "-gen-", 1).factory());
        if (parallel > 1) {
            LOG.info("model {} runs up to {} generations at once", name, parallel);
        }
        loaded.complete(null);
        notifyIdle();
        try {
            while (true) {
                Job<?> job = jobs.next();
                if (job == null) {
                    notifyIdle();
                } else if (job instanceof StopJob) {
                    break;
                } else if (generations != null && job instanceof Generation) {
                    generations.execute(() -> run(job, model));
                } else {
                    run(job, model);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (generations != null) {
                // waits for the generations still running (only after an interrupt: the stop waits for them)
                generations.close();
            }
            model.close();
            end("model " + name + " was unloaded", true);
        }
    }

    /** One job, on the worker thread or on a generation thread; never throws. */
    private void run(Job<?> job, BackendModel model) {
        try {
            job.execute(model);
        } catch (Throwable t) {
            LOG.error("model {}: job failed", name, t);
        } finally {
            loadedSlots = model.loadedSlots();
            jobs.ended(job);
        }
    }

    /**
     * No more work: what is still queued ends with {@code message}, as unloaded (a 503 to retry: the model loads
     * again) when {@code unloaded}, else as failed (its load failed).
     */
    private void end(String message, boolean unloaded) {
        closing = true;
        for (Job<?> job : jobs.close()) {
            if (unloaded) {
                job.unloaded(message);
            } else {
                job.fail(message);
            }
        }
        stopped.complete(null);
    }

    private void notifyIdle() {
        try {
            onIdle.run();
        } catch (RuntimeException e) {
            LOG.warn("model {}: idle listener failed", name, e);
        }
    }
}
