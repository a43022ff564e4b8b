package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.engine.contract.GenerationEvent;

/**
 * Where a model's work comes in: a job submitted into its reserved place is queued (a generation holding its turn
 * before an embedding, a chat preempting background work), a place never used is given back, a job cancelled while
 * it waits leaves the queue. What {@link Reservation}s and jobs reach of their model's worker; the worker takes the
 * jobs out on its threads.
 */
final class ModelIntake {
    private final String name;
    private final String runtime;
    private final GenerationsFirst turns;
    private final JobQueue jobs;

    /** @param runtime the backend's runtime as a user knows it, for messages */
    ModelIntake(String name, String runtime, GenerationsFirst turns, JobQueue jobs) {
        this.name = name;
        this.runtime = runtime;
        this.turns = turns;
        this.jobs = jobs;
    }

    String name() {
        return name;
    }

    String runtime() {
        return runtime;
    }

    GenerationsFirst turns() {
        return turns;
    }

    Generation enqueue(Generation job) {
        // the turn is held before the job can be taken: it is released when the job ends
        if (!jobs.offer(job, () -> job.holdTurn(turns.generationQueued()))) {
            job.emit(new GenerationEvent.Failed(new Failure.Cancelled(CancelReason.UNLOADED,
                    "model " + name + " was unloaded")));
            return job;
        }
        if (!job.background) {
            // background work (Open WebUI's tags, follow-ups) never delays a chat: it yields the NPU
            jobs.backgroundToPreempt().ifPresent(task -> task.cancel(CancelReason.PREEMPTED));
        }
        return job;
    }

    Embedding enqueue(Embedding job) {
        if (!jobs.offer(job, () -> { })) {
            job.emit(new EmbeddingEvent.Failed(new Failure.Cancelled(CancelReason.UNLOADED,
                    "model " + name + " was unloaded")));
        }
        return job;
    }

    /** A reserved place given back unused. */
    void released() {
        jobs.release();
    }

    /** Takes a job that waits out of the queue; false when it was taken to run already. */
    boolean dequeue(Job<?> job) {
        if (jobs.remove(job)) {
            if (job instanceof Generation generation) {
                generation.releaseTurn();
            }
            return true;
        }
        return false;
    }
}
