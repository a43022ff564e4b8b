package io.rkllm.server.engine.contract;

import java.util.List;

/** How one text's embedding ended: what a backend returns for it, as {@link GenerationEvent.End} for a generation. */
public sealed interface EmbeddingEnd {

    /** The last hidden layer: one row of {@code width} floats per token. */
    record Rows(int width, List<float[]> rows, GenerationStats stats) implements EmbeddingEnd {
        public Rows {
            rows = List.copyOf(rows);
        }
    }

    /** Aborted (its request was cancelled). */
    record Aborted() implements EmbeddingEnd {
    }

    /**
     * The text is longer than the model reads (counted by the model's own tokenizer, which the pipeline's estimate
     * can miss): the client's to shorten, a 400.
     *
     * @param param the request field at fault ({@code input}, or {@code query} for a reranker's query)
     */
    record TooLong(String param, String message) implements EmbeddingEnd {
    }

    /** The runtime reported an error. */
    record Failed(String message) implements EmbeddingEnd {
    }
}
