package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.GenerationStats;

/** How a run ended, as the cache policy's bookkeeping needs it to record what the KV cache now holds. */
public sealed interface RunOutcome {

    /** The runtime finished the run; {@code aborted} when it was cut short (stop string, client gone, limit). */
    record Finished(GenerationStats stats, boolean aborted) implements RunOutcome {
    }

    /** The runtime reported an error, or the run could not be started. */
    record Failed(String message) implements RunOutcome {
    }
}
