package io.rkllm.server.pipeline.embedding;

import java.util.List;

/**
 * The vectors of one request, in input order, and what producing them took.
 *
 * @param promptTokens the tokens the model processed for every input, framing included (the runtime's count)
 * @param runtimeMillis the runtime's own time for every run, summed
 * @param queueMillis how long the request waited for the model's worker
 * @param truncated inputs cut to fit the model
 */
public record EmbeddingResult(String modelId, List<float[]> vectors, int promptTokens, double runtimeMillis,
                              long queueMillis, int truncated) {

    public EmbeddingResult {
        vectors = List.copyOf(vectors);
    }
}
