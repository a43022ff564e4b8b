package io.rkllm.server.pipeline;

import io.rkllm.server.models.ModelDescriptor;

/**
 * What one loaded handle of a model takes, in MB, for the memory check before a load: {@code memory_mb} of its
 * model.yaml when stated, else 1.3 times its file size (the weights, plus the KV cache and the runtime's buffers;
 * the same factor {@link SlotCount} uses). Model files are not read, so nothing finer is known; an owner who
 * measured a model (the runtime reports {@code memory_usage_mb}, the board's free memory before and after a load)
 * states it.
 */
final class MemoryEstimate {
    private static final long MIB = 1L << 20;

    private MemoryEstimate() {
    }

    static long perHandleMb(ModelDescriptor model) {
        if (model.memoryMb().isPresent()) {
            return model.memoryMb().getAsInt();
        }
        return Math.max(1, (model.sizeBytes() * 13 / 10 + MIB - 1) / MIB);
    }
}
