package io.rkllm.server.engine.contract;

import io.rkllm.server.engine.contract.cache.CacheContents;
import java.util.Optional;

/**
 * One loaded model of a {@link Backend}. Like Ollama's {@code LlamaServer}: one call per run, each engine with its
 * own cache policy behind it.
 *
 * <p>Which threads call it. The model's worker thread ({@code rkllm-model-<id>}) makes every call that is not a
 * generation, one at a time: the load ({@link Backend#load}), {@link #parallelGenerations()} and
 * {@link #encoder()} right after it, {@link #readyForEmbeddings} and {@link #embed} (never while a generation of
 * this model runs, and no generation starts until they are done), and {@link #close()} (after every other call has
 * returned). {@link #generate} is called:
 * <ul>
 *   <li>when {@link #parallelGenerations()} is 1 (the default; RKLLM): on the worker thread too, one at a time, so
 *       that every call of the model comes from that one thread, in order;</li>
 *   <li>when it is N &gt; 1: from up to N threads at once ({@code rkllm-model-<id>-gen-1} to {@code -gen-N}, each
 *       call on one of them), concurrently with each other and with {@link #held()} and {@link #loadedSlots()}.
 *       Such a model must be thread-safe for these three calls; the calls of its loads of further slots through
 *       {@link LoadContext#loadSlot} may then come from those threads too.</li>
 * </ul>
 * {@link #held()} is read from any thread at any time. A {@link Cancellation} given to a call may fire from any
 * thread.
 */
public interface BackendModel extends AutoCloseable {

    /**
     * How many {@link #generate} calls it runs at once, each on its own thread (a llama.cpp context with several
     * sequences decoded in one batch: continuous batching). The engine starts up to this many generations of the
     * model side by side and queues the rest. Asked once, right after the load. 1, the default, for a runtime that
     * serialises its runs (RKLLM: one run per handle, the NPU's time shared anyway).
     */
    default int parallelGenerations() {
        return 1;
    }

    /**
     * One generation: the backend's cache policy picks a slot and what to send, the run streams whole characters
     * to {@code sink}, and ends. Never throws: a failure is {@link GenerationEvent.Failed}.
     *
     * @param maxTokens the request's limit, 0 for none
     * @param cancellation aborts the run when it fires (before the run: it never starts)
     */
    GenerationEvent.End generate(ChatPrompt prompt, int maxTokens, TokenSink sink, Cancellation cancellation);

    /** What its slots hold now, in the words every backend keeps them in; from any thread. */
    CacheContents held();

    /** Readies the model for embedding runs: the template the texts are framed in, an empty cache. */
    void readyForEmbeddings(Optional<PromptTemplate> template);

    /** One text's embedding run: the last hidden layer's rows, one per token. */
    EmbeddingEnd embed(String text, Cancellation cancellation);

    /**
     * A reranker's run: how relevant {@code document} is to {@code query}, as one row of one value. A model that
     * does not rank says so.
     */
    default EmbeddingEnd rank(String query, String document, Cancellation cancellation) {
        return new EmbeddingEnd.Failed("this model does not rank documents");
    }

    /**
     * The text the model reads for {@code prompt}, when its engine renders it (a chat template applied): what
     * llama-server's {@code /apply-template} answers. Empty for an engine whose runtime builds the text itself. From
     * any thread; nothing is run.
     *
     * @throws IllegalArgumentException when the template refuses the conversation (its message says why)
     */
    default Optional<String> promptText(ChatPrompt prompt) {
        return Optional.empty();
    }

    /**
     * The model's own tokenizer, when its engine lends it: asked from any thread while the model runs; freeing the
     * model waits for the calls under way, and later ones throw {@link ModelTokenizer.Unloaded}. Empty for a runtime
     * without one to ask (RKLLM).
     */
    default Optional<ModelTokenizer> tokenizer() {
        return Optional.empty();
    }

    /** Slots (KV caches) loaded so far; after each job, on the thread that ran it. */
    int loadedSlots();

    /** A vision model's image encoder: the picture size it takes, its tokens per picture. */
    Optional<EncoderInfo> encoder();

    /** Frees every native resource; on the worker thread, after the last call. Never throws. */
    @Override
    void close();
}
