package io.rkllm.server.engine;

import java.util.List;

/**
 * One embedding request as the layers above decide it: the prompts to run, already framed as the model was
 * trained, and how the rows of each run become the vector that is kept (so that only vectors leave the worker).
 * Called on the model's worker thread.
 */
public interface EmbeddingWork {

    /** Readies the model's handle before the first prompt: its chat template, an empty KV cache. */
    void prepare(KvCacheHandle slot);

    /** The prompts, in the request's order. */
    List<String> prompts();

    /** The vector of one prompt from its run's last hidden layer: one row of {@code width} floats per token. */
    float[] pool(int width, List<float[]> rows);
}
