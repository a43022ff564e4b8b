package io.rkllm.server.pipeline;

import io.rkllm.server.domain.CancelReason;
import java.time.Duration;
import java.util.Optional;

/**
 * One request's answer in the making, as the route reads it: started when the route is ready to write, read step by
 * step until finished or failed, closed when done (which cancels what has not ended). One thread reads it; any
 * thread may {@link #cancel}.
 */
public interface Run extends AutoCloseable {

    PreparedChat chat();

    /** The model that answers. */
    default String modelId() {
        return chat().model().id();
    }

    /** When the request arrived ({@link System#nanoTime}). */
    long arrivedNanos();

    /** What taking its place in the queue took, loading the model included (Ollama's {@code load_duration}). */
    long loadNanos();

    /** Queues the work in its reserved place. */
    void start();

    /** The next step, waiting at most {@code keepAlive} before answering {@link RunStep.KeepAlive}. */
    RunStep next(Duration keepAlive) throws InterruptedException;

    void cancel(CancelReason reason);

    /** Why the run was cancelled, if it was (for metrics). */
    Optional<CancelReason> cancelReason();

    /** The stop string that ended the answer, if one did. */
    Optional<String> matchedStop();

    boolean isDone();

    /** Cancels the run if it has not ended. */
    @Override
    void close();
}
