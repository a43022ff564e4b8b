package io.rkllm.server.engine;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.engine.contract.GenerationStats;
import java.util.List;

/**
 * What an {@link Embedding} delivers to its reader, in order: Started, a RunStarted and a RunEnded around each
 * prompt's run, then Done or Failed.
 */
public sealed interface EmbeddingEvent {

    /** The model's worker took the job; {@code queueMillis} it waited. */
    record Started(long queueMillis) implements EmbeddingEvent {
    }

    /** The run of prompt {@code index} begins (after its turn came: chats go first). */
    record RunStarted(int index) implements EmbeddingEvent {
    }

    /** The run of prompt {@code index} ended; the next one waits for its turn. */
    record RunEnded(int index) implements EmbeddingEvent {
    }

    /**
     * Every prompt ran.
     *
     * @param vectors one per prompt, in order
     * @param runs the runtime's counts and times of each prompt's run, in order
     */
    record Done(List<float[]> vectors, List<GenerationStats> runs) implements EmbeddingEvent {
        public Done {
            vectors = List.copyOf(vectors);
            runs = List.copyOf(runs);
        }
    }

    /** A prompt failed (the request fails whole), or the request was cancelled. */
    record Failed(Failure failure) implements EmbeddingEvent {
    }
}
