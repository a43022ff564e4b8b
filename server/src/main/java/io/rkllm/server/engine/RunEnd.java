package io.rkllm.server.engine;

/** How a backend's generation ended. */
public sealed interface RunEnd {

    /**
     * The run produced a result.
     *
     * @param reason why it ended; {@link StopReason#CANCELLED} when it was aborted (the engine tells why)
     * @param stats the backend's own counts and times of this run
     * @param reusedTokens what the cache held of the conversation before the run (its policy's decision)
     */
    record Finished(StopReason reason, RunStats stats, int reusedTokens) implements RunEnd {
    }

    /** The run could not be prepared or started, or the runtime reported an error; the message is for the client. */
    record Failed(String message) implements RunEnd {
    }
}
