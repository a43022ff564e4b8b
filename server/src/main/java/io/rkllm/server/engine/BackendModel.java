package io.rkllm.server.engine;

import io.rkllm.server.engine.cache.CacheContents;
import java.util.Optional;

/**
 * One loaded model of a {@link Backend}, called only on the model's worker thread (one call at a time), except
 * that a {@link Cancellation} given to a call may fire from any thread. Like Ollama's {@code LlamaServer}: one call
 * per run, each engine with its own cache policy behind it.
 */
public interface BackendModel extends AutoCloseable {

    /**
     * One generation: the backend's cache policy picks a slot and what to send, the run streams whole characters
     * to {@code sink}, and ends. Never throws: a failure is {@link RunEnd.Failed}.
     *
     * @param maxTokens the request's limit, 0 for none
     * @param cancellation aborts the run when it fires (before the run: it never starts)
     */
    RunEnd generate(ChatPrompt prompt, int maxTokens, TokenSink sink, Cancellation cancellation);

    /** What its slots hold now, in the words every backend keeps them in; from any thread. */
    CacheContents held();

    /** Readies the model for embedding runs: the template the texts are framed in, an empty cache. */
    void readyForEmbeddings(Optional<PromptTemplate> template);

    /** One text's embedding run: the last hidden layer's rows, one per token. */
    EmbedResult embed(String text, Cancellation cancellation);

    /**
     * A reranker's run: how relevant {@code document} is to {@code query}, as one row of one value. A model that
     * does not rank says so.
     */
    default EmbedResult rank(String query, String document, Cancellation cancellation) {
        return new EmbedResult.Failed("this model does not rank documents");
    }

    /** Slots (KV caches) loaded so far. */
    int loadedSlots();

    /** A vision model's image encoder: the picture size it takes, its tokens per picture. */
    Optional<EncoderInfo> encoder();

    /** Frees every native resource; on the worker thread, after the last call. Never throws. */
    @Override
    void close();
}
