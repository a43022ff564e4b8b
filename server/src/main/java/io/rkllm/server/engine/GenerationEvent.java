package io.rkllm.server.engine;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.StopReason;
import java.util.Optional;

/** What a {@link Generation} delivers to its reader, in order: Started, Text..., then Done or Failed. */
public sealed interface GenerationEvent {

    /** The model's worker took the job; {@code queueMillis} it waited. */
    record Started(long queueMillis) implements GenerationEvent {
    }

    /** Whole characters of output; {@code tokens} generated so far. */
    record Text(String text, int tokens) implements GenerationEvent {
    }

    /**
     * The run ended with a result.
     *
     * @param stats the runtime's own counts for this run
     * @param reusedTokens what the KV cache held of the conversation before the run (the cache policy's decision)
     * @param prefilledText the text the run prefilled whole, when the backend knows it exactly (to calibrate the
     *                      token estimate with {@code stats}' prefill count)
     * @param runtimeSettings the backend's words for this run's settings, for a log line about it
     */
    record Done(StopReason reason, GenerationStats stats, int reusedTokens, Optional<String> prefilledText,
                String runtimeSettings) implements GenerationEvent {
    }

    /** The generation failed, or was cancelled before it produced a result. */
    record Failed(Failure failure) implements GenerationEvent {
    }
}
