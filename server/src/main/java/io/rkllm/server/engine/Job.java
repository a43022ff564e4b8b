package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.Cancellation;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Work for a model's threads, ordered by priority class, then FIFO ({@link JobQueue}), and its caller's handle on it:
 * its events, and cancellation from any thread. Cancelling a queued job takes it out of the queue (its reader gets
 * the cancellation as its end); cancelling a running one aborts its native run (through its {@link Cancellation}),
 * never waiting on the worker.
 *
 * @param <E> the job's events
 */
abstract sealed class Job<E> implements Comparable<Job<?>> permits Generation, Embedding, StopJob {
    final int priority;
    final long sequence;
    private final BlockingQueue<E> events = new LinkedBlockingQueue<>();
    private final Cancellation cancellation = new Cancellation();
    private final AtomicReference<CancelReason> cancelReason = new AtomicReference<>();
    private final Predicate<Job<?>> dequeue;
    private final Function<Failure, E> failed;

    /**
     * @param dequeue takes the job out of its queue; false when it is no longer there (running or over)
     * @param failed the event that ends a job which failed or was cancelled before it ran
     */
    Job(int priority, long sequence, Predicate<Job<?>> dequeue, Function<Failure, E> failed) {
        this.priority = priority;
        this.sequence = sequence;
        this.dequeue = dequeue;
        this.failed = failed;
    }

    /** Runs with the loaded model: on the model's thread, or a generation on one of its generation threads. */
    abstract void execute(BackendModel model);

    /**
     * The model is gone before the job could run: its reader's end, the job's cancellation when it was cancelled
     * (with {@code message}), else a runtime failure.
     */
    void fail(String message) {
        emit(failed.apply(cancelReason().<Failure>map(r -> new Failure.Cancelled(r, message))
                .orElse(new Failure.RuntimeFailed(message))));
    }

    /** The model was unloaded before the job could run: its reader hears so (to retry: it loads again), no failure. */
    void unloaded(String message) {
        cancelReason.compareAndSet(null, CancelReason.UNLOADED);
        fail(message);
    }

    /** The end of a job cancelled before or while it ran, for {@code fallback} when no reason was given. */
    E cancelledEnd(CancelReason fallback) {
        CancelReason reason = cancelReason().orElse(fallback);
        return failed.apply(new Failure.Cancelled(reason, reason.description()));
    }

    /** The next event, or null after {@code timeout} without one. */
    public E poll(Duration timeout) throws InterruptedException {
        return events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Cancels once, queued or running (a client gone, a timeout, unload, shutdown); later calls keep the first reason. */
    public void cancel(CancelReason reason) {
        if (!cancelReason.compareAndSet(null, reason)) {
            return;
        }
        if (dequeue.test(this)) {
            emit(cancelledEnd(reason));
        } else {
            cancellation.cancel();
        }
    }

    public Optional<CancelReason> cancelReason() {
        return Optional.ofNullable(cancelReason.get());
    }

    Cancellation cancellation() {
        return cancellation;
    }

    void emit(E event) {
        events.add(event);
    }

    @Override
    public int compareTo(Job<?> other) {
        int byPriority = Integer.compare(priority, other.priority);
        return byPriority != 0 ? byPriority : Long.compare(sequence, other.sequence);
    }
}
