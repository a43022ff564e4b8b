package io.rkllm.server.pipeline.embedding;

import io.rkllm.server.models.ModelDescriptor;
import java.util.List;
import java.util.OptionalInt;

/**
 * A request checked and framed, before it takes a place in the model's queue.
 *
 * @param prompts    what the runtime is given for each input, in order (prefix, text, end-of-text marker)
 * @param dimensions the requested width, when shorter than the model's
 * @param truncated  how many inputs were cut to fit the model
 */
public record PreparedEmbedding(EmbeddingRequest request, ModelDescriptor model, List<String> prompts,
                                OptionalInt dimensions, int truncated) {

    public PreparedEmbedding {
        prompts = List.copyOf(prompts);
    }
}
