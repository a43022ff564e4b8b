package io.rkllm.server.engine.contract;

import java.util.List;

/** What one text's embedding run gave. */
public sealed interface EmbedResult {

    /** The last hidden layer: one row of {@code width} floats per token. */
    record Rows(int width, List<float[]> rows, GenerationStats stats) implements EmbedResult {
        public Rows {
            rows = List.copyOf(rows);
        }
    }

    /** Aborted (its request was cancelled). */
    record Aborted() implements EmbedResult {
    }

    /**
     * The text is longer than the model reads (counted by the model's own tokenizer, which the pipeline's estimate
     * can miss): the client's to shorten, a 400.
     *
     * @param param the request field at fault ({@code input}, or {@code query} for a reranker's query)
     */
    record TooLong(String param, String message) implements EmbedResult {
    }

    /** The runtime reported an error. */
    record Failed(String message) implements EmbedResult {
    }
}
