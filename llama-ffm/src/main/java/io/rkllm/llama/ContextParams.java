package io.rkllm.llama;

/**
 * What {@code llama_init_from_model} is given; every other field keeps the library's default.
 *
 * @param contextLength  KV cells of the context (0: the model's training length)
 * @param batchSize      most tokens one {@code llama_decode} call may take
 * @param microBatchSize most tokens computed at once inside a decode
 * @param sequences      how many sequences (conversations) the context holds at once
 * @param threads        threads for generation; {@code batchThreads} for prompt processing
 * @param embeddings     the context outputs embeddings instead of logits
 * @param pooling        how embeddings are pooled per sequence ({@link Pooling#UNSPECIFIED}: the model's own)
 * @param unifiedKv      the sequences share the context's cells (each may grow to the whole context); builds
 *                       before v0.5.0 always share, later ones split the cells evenly unless this is set
 * @param flashAttention on builds with the {@code flash_attn} switch (b4916), turn flash attention on; later
 *                       builds decide by themselves ({@code flash_attn_type} auto, which is on for the CPU). In a
 *                       shared cache each token's attention runs over every cell in use, other sequences' too (masked
 *                       out): the flash kernel skips masked cells, the plain one computes them, so that without it
 *                       the idle conversations a cache keeps slow every other sequence's steps
 */
public record ContextParams(int contextLength, int batchSize, int microBatchSize, int sequences, int threads,
                            int batchThreads, boolean embeddings, Pooling pooling, boolean unifiedKv,
                            boolean flashAttention) {

    /** With the library's own flash attention setting. */
    public ContextParams(int contextLength, int batchSize, int microBatchSize, int sequences, int threads,
                         int batchThreads, boolean embeddings, Pooling pooling, boolean unifiedKv) {
        this(contextLength, batchSize, microBatchSize, sequences, threads, batchThreads, embeddings, pooling,
                unifiedKv, false);
    }

    public ContextParams {
        if (contextLength < 0 || batchSize <= 0 || microBatchSize <= 0 || sequences <= 0 || threads <= 0
                || batchThreads <= 0) {
            throw new IllegalArgumentException("invalid context parameters " + contextLength + "/" + batchSize + "/"
                    + microBatchSize + "/" + sequences + "/" + threads + "/" + batchThreads);
        }
    }

    /** A generation context of {@code contextLength} cells shared by {@code sequences} sequences. */
    public static ContextParams generation(int contextLength, int sequences, int threads) {
        return generation(contextLength, sequences, threads, false);
    }

    /**
     * A generation context whose {@code sequences} sequences may each hold {@code contextLength} tokens: in one cache
     * of that many cells they share, or ({@code ownCaches}) each in a cache of its own, {@code sequences} times the
     * cells (a build without the {@code kv_unified} switch always shares one cache: it then gets one of
     * {@code contextLength} cells).
     */
    public static ContextParams generation(int contextLength, int sequences, int threads, boolean ownCaches) {
        return new ContextParams(ownCaches ? contextLength * sequences : contextLength, 512, 512, sequences, threads,
                threads, false, Pooling.UNSPECIFIED, !ownCaches, true);
    }

    /** An embedding context: every token of a text in one batch, pooled by {@code pooling}. */
    public static ContextParams embedding(int contextLength, int sequences, int threads, Pooling pooling) {
        return new ContextParams(contextLength, contextLength, contextLength, sequences, threads, threads, true,
                pooling, true);
    }

    public ContextParams withBatchSize(int value) {
        return new ContextParams(contextLength, value, Math.min(microBatchSize, value), sequences, threads,
                batchThreads, embeddings, pooling, unifiedKv, flashAttention);
    }
}
