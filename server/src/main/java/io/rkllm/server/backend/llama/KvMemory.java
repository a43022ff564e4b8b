package io.rkllm.server.backend.llama;

import io.rkllm.server.models.ModelHeader;

/**
 * The arithmetic of a GGUF model's memory that the served context ({@link GgufLimits}), the KV layout
 * ({@link KvLayout}) and the load's estimate ({@link GgufFacts}) share: the budget's share of the machine, the
 * caches a context holds, llama.cpp's compute buffers, the training context.
 */
final class KvMemory {
    /** The share of the machine's memory the loaded models may take (as pipeline/ModelMemory's budget). */
    static final double BUDGET_SHARE = 0.6;
    /** The shortest context a GGUF model is given when memory is short (the memory check then refuses the load). */
    static final int MIN_CONTEXT = 2048;
    /** Used when the file gives no training context. */
    static final int FALLBACK_CONTEXT = 4096;

    private KvMemory() {
    }

    /** The training context a model's header gives, else {@link #FALLBACK_CONTEXT}. */
    static int trained(ModelHeader header) {
        return header.trainingContext() > 0 ? header.trainingContext() : FALLBACK_CONTEXT;
    }

    /**
     * The default context of one cache the conversations share: the model's training context, capped so that the
     * weights and the cache fit in the budget (whole multiples of 256 cells, as llama.cpp pads the context anyway).
     */
    static int sharedContext(int trained, long kvBytesPerToken, long fileBytes, long memoryBytes) {
        long room = (long) (memoryBytes * BUDGET_SHARE) - fileBytes;
        long fits = room / kvBytesPerToken;
        return (int) Math.min(trained, Math.max(MIN_CONTEXT, fits / 256 * 256));
    }

    /** The caches a context holds when each conversation has its own: one a conversation and one for tasks. */
    static int caches(int parallel) {
        return parallel + 1;
    }

    /** llama.cpp's compute buffers: about a tenth of the weights, at least 64 MB. */
    static long computeBytes(long fileBytes) {
        return Math.max(64L << 20, fileBytes / 10);
    }
}
