package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.ffm.Abi;
import io.rkllm.ffm.Model;
import io.rkllm.ffm.PerfStats;
import io.rkllm.ffm.RunInput;
import io.rkllm.ffm.TokenEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loaded model: a dedicated platform thread that makes every native call for the handle
 * (init, runs, cache operations, destroy) in order, fed by a priority queue that is FIFO within
 * each priority class. The route threads only submit jobs, read events and cancel.
 */
public final class ModelWorker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ModelWorker.class);

    private final String name;
    private final int maxQueued;
    private final PriorityBlockingQueue<Job> queue = new PriorityBlockingQueue<>();
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicInteger queuedGenerations = new AtomicInteger();
    private final CompletableFuture<List<Model>> loaded = new CompletableFuture<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final Thread thread;
    private volatile boolean closing;
    private volatile boolean busy;
    private volatile GenerationJob running;
    private final Runnable onIdle;

    /**
     * Starts the worker thread, which begins by loading {@code slots} handles of the model with
     * {@code loader} (each slot has its own KV cache; runs still go one at a time).
     */
    public ModelWorker(String name, int maxQueued, int slots, Supplier<Model> loader) {
        this(name, maxQueued, slots, loader, () -> { });
    }

    /** @param onIdle called on the worker thread whenever it has nothing queued or running any more */
    public ModelWorker(String name, int maxQueued, int slots, Supplier<Model> loader, Runnable onIdle) {
        this.name = name;
        this.maxQueued = maxQueued;
        this.onIdle = onIdle;
        this.thread = Thread.ofPlatform().name("rkllm-model-" + name).start(() -> loop(slots, loader));
    }

    public String name() {
        return name;
    }

    /** Completes with the slots once every {@code rkllm_init} returned, or exceptionally when one failed. */
    public CompletableFuture<List<Model>> loaded() {
        return loaded;
    }

    /** Completes when the worker thread has destroyed the model and ended. */
    public CompletableFuture<Void> stopped() {
        return stopped;
    }

    public int queued() {
        return queuedGenerations.get();
    }

    public boolean busy() {
        return busy;
    }

    /**
     * Queues a generation. {@code maxTokens} &gt; 0 limits the output on both ABIs: per run on 1.3,
     * by counting tokens and aborting on 1.2.
     *
     * @throws QueueFullException when {@code maxQueued} generations already wait
     */
    public Generation submit(RunPlanner planner, Priority priority, int maxTokens) {
        return reserve(priority).submit(planner, maxTokens);
    }

    /**
     * Takes a place in the queue without queueing work yet, so the caller can commit its response
     * (a stream's headers) before the worker starts: the place keeps its FIFO position.
     *
     * @throws QueueFullException when {@code maxQueued} generations already wait
     * @throws IllegalStateException when the model is being unloaded
     */
    public Reservation reserve(Priority priority) {
        if (closing) {
            throw new IllegalStateException("model " + name + " is being unloaded");
        }
        if (queuedGenerations.incrementAndGet() > maxQueued) {
            queuedGenerations.decrementAndGet();
            throw new QueueFullException(name, maxQueued);
        }
        return new Reservation(priority, sequence.getAndIncrement());
    }

    /** A place in the queue: submit work into it once, or release it. */
    public final class Reservation {
        private final Priority priority;
        private final long place;
        private boolean used;

        private Reservation(Priority priority, long place) {
            this.priority = priority;
            this.place = place;
        }

        public synchronized Generation submit(RunPlanner planner, int maxTokens) {
            if (used) {
                throw new IllegalStateException("reservation already used");
            }
            used = true;
            GenerationJob job = new GenerationJob(priority, place, planner, maxTokens);
            synchronized (queue) {
                if (stopped.isDone()) {
                    queuedGenerations.decrementAndGet();
                    job.generation.emit(new GenerationEvent.Failed("model " + name + " was unloaded",
                            Optional.of(CancelReason.UNLOADED)));
                    return job.generation;
                }
                queue.add(job);
            }
            GenerationJob current = running;
            if (priority == Priority.INTERACTIVE && current != null && current.background) {
                // background work (Open WebUI's tags, follow-ups) never delays a chat: it yields the NPU
                current.generation.cancel(CancelReason.PREEMPTED);
            }
            return job.generation;
        }

        /** Gives the place back when the work will never be submitted. */
        public synchronized void release() {
            if (!used) {
                used = true;
                queuedGenerations.decrementAndGet();
            }
        }
    }

    /** Runs {@code action} on the worker thread ahead of queued generations (cache operations, info). */
    public <T> CompletableFuture<T> call(Function<List<Model>, T> action) {
        CallJob<T> job = new CallJob<>(sequence.getAndIncrement(), action);
        queue.add(job);
        return job.result;
    }

    /** Stops taking work, cancels what waits, lets a running generation be aborted, destroys the model. */
    @Override
    public void close() {
        closing = true;
        for (Job job : queue.toArray(Job[]::new)) {
            if (job instanceof GenerationJob g) {
                g.generation.cancel(CancelReason.UNLOADED);
            }
        }
        queue.add(new StopJob(sequence.getAndIncrement()));
    }

    /** Cancels the generation running now, if any (shutdown deadline, forced unload). */
    public void cancelRunning(CancelReason reason) {
        GenerationJob job = running;
        if (job != null) {
            job.generation.cancel(reason);
        }
    }

    private void loop(int slotCount, Supplier<Model> loader) {
        List<Model> model = new ArrayList<>();
        try {
            for (int i = 0; i < slotCount; i++) {
                model.add(loader.get());
            }
        } catch (Throwable t) {
            model.forEach(ModelWorker::destroy);
            loaded.completeExceptionally(t);
            synchronized (queue) {
                failAll(t);
                stopped.complete(null);
            }
            return;
        }
        model = List.copyOf(model);
        loaded.complete(model);
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
                }
                if (queuedGenerations.get() == 0) {
                    notifyIdle();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closing = true;
            model.forEach(ModelWorker::destroy);
            synchronized (queue) {
                failAll(new IllegalStateException("model " + name + " was unloaded"));
                stopped.complete(null);
            }
        }
    }

    private void notifyIdle() {
        try {
            onIdle.run();
        } catch (RuntimeException e) {
            LOG.warn("model {}: idle listener failed", name, e);
        }
    }

    private static void destroy(Model handle) {
        try {
            handle.close();
        } catch (Throwable t) {
            LOG.error("rkllm_destroy failed", t);
        }
    }

    private void failAll(Throwable cause) {
        closing = true;
        Job job;
        while ((job = queue.poll()) != null) {
            job.fail(cause);
        }
    }

    private boolean dequeue(GenerationJob job) {
        if (queue.remove(job)) {
            queuedGenerations.decrementAndGet();
            return true;
        }
        return false;
    }

    private abstract static sealed class Job implements Comparable<Job> permits GenerationJob, CallJob, StopJob {
        final int priority;
        final long sequence;

        Job(int priority, long sequence) {
            this.priority = priority;
            this.sequence = sequence;
        }

        abstract void execute(List<Model> slots);

        abstract void fail(Throwable cause);

        @Override
        public int compareTo(Job other) {
            int byPriority = Integer.compare(priority, other.priority);
            return byPriority != 0 ? byPriority : Long.compare(sequence, other.sequence);
        }
    }

    private final class GenerationJob extends Job {
        final Generation generation;
        final RunPlanner planner;
        final int maxTokens;
        final boolean background;
        final long queuedAt = System.nanoTime();

        GenerationJob(Priority priority, long sequence, RunPlanner planner, int maxTokens) {
            super(1 + priority.ordinal(), sequence);
            this.planner = planner;
            this.maxTokens = maxTokens;
            this.background = priority == Priority.BACKGROUND;
            this.generation = new Generation(g -> dequeue(this));
        }

        @Override
        void execute(List<Model> slots) {
            queuedGenerations.decrementAndGet();
            if (generation.control().isAborted()) {
                return;
            }
            running = this;
            try {
                run(slots);
            } finally {
                running = null;
            }
        }

        private void run(List<Model> slots) {
            generation.emit(new GenerationEvent.Started((System.nanoTime() - queuedAt) / 1_000_000));
            RunPlanner.RunPlan plan;
            try {
                plan = planner.plan(slots);
            } catch (RuntimeException e) {
                LOG.warn("model {}: preparing the run failed: {}", name, e.toString());
                generation.emit(new GenerationEvent.Failed("preparing the run failed: " + e.getMessage(),
                        Optional.empty()));
                return;
            }
            Model model = plan.slot();
            RunInput input = plan.input();
            boolean countLimit = maxTokens > 0 && model.abi() == Abi.V1_2;
            if (maxTokens > 0 && model.abi().perRunSampling()) {
                input = input.withMaxNewTokens(maxTokens);
            }
            boolean[] limitHit = {false};
            StringBuilder generated = new StringBuilder();
            TokenEvent terminal;
            try {
                terminal = model.run(input, event -> {
                    if (event instanceof TokenEvent.Text text) {
                        generated.append(text.text());
                        generation.emit(new GenerationEvent.Text(text.text(), text.tokens()));
                        if (countLimit && text.tokens() >= maxTokens && !limitHit[0]) {
                            limitHit[0] = true;
                            generation.control().abort();
                        }
                    }
                }, generation.control());
            } catch (RuntimeException e) {
                LOG.error("model {}: run failed", name, e);
                terminal = new TokenEvent.Failed("the run failed: " + e.getMessage());
            }
            try {
                planner.finished(new RunPlanner.RunPlan(model, input), terminal, generated.toString());
            } catch (RuntimeException e) {
                LOG.error("model {}: recording the run failed", name, e);
            }
            generation.emit(outcome(terminal, limitHit[0]));
        }

        private GenerationEvent outcome(TokenEvent terminal, boolean limitHit) {
            return switch (terminal) {
                case TokenEvent.Failed failed -> new GenerationEvent.Failed(failed.message(), Optional.empty());
                case TokenEvent.Finished finished -> finishedEvent(finished.perf(), finished.aborted(), limitHit);
                case TokenEvent.Text text -> throw new IllegalStateException("text is not terminal");
            };
        }

        private GenerationEvent finishedEvent(PerfStats perf, boolean aborted, boolean limitHit) {
            if (limitHit || (maxTokens > 0 && !aborted && perf.generateTokens() >= maxTokens)) {
                return new GenerationEvent.Done(StopReason.LENGTH, perf);
            }
            if (aborted) {
                Optional<CancelReason> reason = generation.cancelReason();
                if (reason.isPresent() && reason.get().isError()) {
                    return new GenerationEvent.Failed(reason.get().description(), reason);
                }
                return new GenerationEvent.Done(StopReason.CANCELLED, perf);
            }
            return new GenerationEvent.Done(StopReason.END, perf);
        }

        @Override
        void fail(Throwable cause) {
            queuedGenerations.decrementAndGet();
            generation.emit(new GenerationEvent.Failed(cause.getMessage(), generation.cancelReason()));
        }
    }

    private static final class CallJob<T> extends Job {
        final Function<List<Model>, T> action;
        final CompletableFuture<T> result = new CompletableFuture<>();

        CallJob(long sequence, Function<List<Model>, T> action) {
            super(0, sequence);
            this.action = action;
        }

        @Override
        void execute(List<Model> slots) {
            try {
                result.complete(action.apply(slots));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }

        @Override
        void fail(Throwable cause) {
            result.completeExceptionally(cause);
        }
    }

    private static final class StopJob extends Job {
        StopJob(long sequence) {
            super(Integer.MAX_VALUE, sequence);
        }

        @Override
        void execute(List<Model> slots) {
        }

        @Override
        void fail(Throwable cause) {
        }
    }
}
