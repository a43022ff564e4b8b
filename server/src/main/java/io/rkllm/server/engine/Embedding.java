package io.rkllm.server.engine;

import io.rkllm.ffm.RunControl;
import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A caller's handle on one queued or running embedding request: its events, and cancellation from any thread.
 * Cancelling a queued request removes it from the queue; cancelling a running one aborts its current run and
 * skips the prompts after it.
 */
public final class Embedding {
    private final BlockingQueue<EmbeddingEvent> events = new LinkedBlockingQueue<>();
    private final RunControl control = new RunControl();
    private final AtomicReference<CancelReason> cancelReason = new AtomicReference<>();
    private final Predicate<Embedding> dequeue;

    Embedding(Predicate<Embedding> dequeue) {
        this.dequeue = dequeue;
    }

    /** The next event, or null after {@code timeout} without one. */
    public EmbeddingEvent poll(Duration timeout) throws InterruptedException {
        return events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Cancels once; later calls keep the first reason. */
    public void cancel(CancelReason reason) {
        if (!cancelReason.compareAndSet(null, reason)) {
            return;
        }
        if (dequeue.test(this)) {
            emit(new EmbeddingEvent.Failed(new Failure.Cancelled(reason, reason.description())));
        } else {
            control.abort();
        }
    }

    public Optional<CancelReason> cancelReason() {
        return Optional.ofNullable(cancelReason.get());
    }

    RunControl control() {
        return control;
    }

    void emit(EmbeddingEvent event) {
        events.add(event);
    }
}
