package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.engine.contract.Cancellation;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * A caller's handle on one queued or running job: its events, and cancellation from any thread. Cancelling a
 * queued job removes it from the queue (its reader gets the cancellation as its end); cancelling a running one
 * aborts its native run (through its {@link Cancellation}), never waiting on the worker.
 *
 * @param <E> the job's events
 */
public abstract sealed class JobHandle<E> permits Generation, Embedding {
    private final BlockingQueue<E> events = new LinkedBlockingQueue<>();
    private final Cancellation cancellation = new Cancellation();
    private final AtomicReference<CancelReason> cancelReason = new AtomicReference<>();
    private final BooleanSupplier dequeue;
    private final Function<Failure, E> failed;

    /**
     * @param dequeue takes the job out of its queue; false when it is no longer there (running or over)
     * @param failed the event that ends a job which failed or was cancelled before it ran
     */
    JobHandle(BooleanSupplier dequeue, Function<Failure, E> failed) {
        this.dequeue = dequeue;
        this.failed = failed;
    }

    /** The next event, or null after {@code timeout} without one. */
    public E poll(Duration timeout) throws InterruptedException {
        return events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Cancels once; later calls keep the first reason. */
    public void cancel(CancelReason reason) {
        if (!cancelReason.compareAndSet(null, reason)) {
            return;
        }
        if (dequeue.getAsBoolean()) {
            emit(failed.apply(new Failure.Cancelled(reason, reason.description())));
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
}
