package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.engine.contract.BackendModel;

/** Work for a model's threads, ordered by priority class, then FIFO ({@link JobQueue}). */
abstract sealed class Job implements Comparable<Job> permits GenerationJob, EmbeddingJob, StopJob {
    final int priority;
    final long sequence;

    Job(int priority, long sequence) {
        this.priority = priority;
        this.sequence = sequence;
    }

    /** Runs with the loaded model: on the model's thread, or a generation on one of its generation threads. */
    abstract void execute(BackendModel model);

    /** The model is gone before the job could run. */
    abstract void fail(String message);

    /** Cancels the job, queued or running (unload, shutdown). */
    abstract void cancel(CancelReason reason);

    @Override
    public int compareTo(Job other) {
        int byPriority = Integer.compare(priority, other.priority);
        return byPriority != 0 ? byPriority : Long.compare(sequence, other.sequence);
    }
}
