package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.ffm.PerfStats;

/** What a {@link Generation} delivers to its reader, in order: Started, Text..., then Done or Failed. */
public sealed interface GenerationEvent {

    /** The model's worker took the job; {@code queueMillis} it waited. */
    record Started(long queueMillis) implements GenerationEvent {
    }

    /** Whole characters of output; {@code tokens} generated so far. */
    record Text(String text, int tokens) implements GenerationEvent {
    }

    /** The run ended; {@code perf} are the runtime's own counts for it. */
    record Done(StopReason reason, PerfStats perf) implements GenerationEvent {
    }

    /**
     * The generation failed or was cancelled before producing a result.
     *
     * @param cancelled the reason when it was cancelled rather than failed in the runtime
     */
    record Failed(String message, java.util.Optional<CancelReason> cancelled) implements GenerationEvent {
    }
}
