package io.rkllm.server.engine;

import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.PromptTemplate;
import java.util.List;
import java.util.Optional;

/**
 * One embedding request as the layers above decide it: the prompts to run, already framed as the model was
 * trained, and how the rows of each run become the vector that is kept (so that only vectors leave the worker).
 * Called on the model's worker thread.
 */
public interface EmbeddingWork {

    /**
     * The template the prompts are framed in, set before the first prompt (with an empty KV cache); empty to keep
     * the model's own.
     */
    Optional<PromptTemplate> template();

    /** The prompts, in the request's order. */
    List<String> prompts();

    /**
     * A rerank request's query: each prompt is then a document, run with the query by the model's
     * {@link BackendModel#rank} (a relevance score as a row of one) instead of {@link BackendModel#embed}.
     */
    default Optional<String> rankQuery() {
        return Optional.empty();
    }

    /** The vector of one prompt from its run's last hidden layer: one row of {@code width} floats per token. */
    float[] pool(int width, List<float[]> rows);
}
