package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;

/** {@link KvCache} through {@code llama_get_memory(ctx)} and the {@code llama_memory_*} calls. */
final class MemoryKvCache implements KvCache {
    private final NativeLlama api;
    private final MemorySegment memory;

    private MemoryKvCache(NativeLlama api, MemorySegment memory) {
        this.api = api;
        this.memory = memory;
    }

    /** The context's memory, or {@link NoKvCache} for a model llama.cpp gives none (one that attends both ways). */
    static KvCache of(NativeLlama api, MemorySegment context) {
        MemorySegment memory = (MemorySegment) api.call("llama_get_memory", context);
        return memory.equals(MemorySegment.NULL) ? new NoKvCache(KvApi.MEMORY) : new MemoryKvCache(api, memory);
    }

    static void bind(NativeLlama api) {
        ContextKvCache.need(api, "llama_get_memory", FunctionDescriptor.of(ADDRESS, ADDRESS));
        ContextKvCache.need(api, "llama_memory_seq_rm",
                FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
        ContextKvCache.need(api, "llama_memory_seq_cp",
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        ContextKvCache.need(api, "llama_memory_seq_keep", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        ContextKvCache.need(api, "llama_memory_seq_add",
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        ContextKvCache.need(api, "llama_memory_seq_pos_max", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        ContextKvCache.need(api, "llama_memory_clear", FunctionDescriptor.ofVoid(ADDRESS, JAVA_BOOLEAN));
        ContextKvCache.need(api, "llama_memory_can_shift", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
    }

    @Override
    public KvApi api() {
        return KvApi.MEMORY;
    }

    @Override
    public boolean remove(int sequence, int from, int to) {
        return (boolean) api.call("llama_memory_seq_rm", memory, sequence, from, to);
    }

    @Override
    public void copy(int source, int target, int from, int to) {
        api.call("llama_memory_seq_cp", memory, source, target, from, to);
    }

    @Override
    public void keepOnly(int sequence) {
        api.call("llama_memory_seq_keep", memory, sequence);
    }

    @Override
    public void shift(int sequence, int from, int to, int delta) {
        api.call("llama_memory_seq_add", memory, sequence, from, to, delta);
    }

    @Override
    public int maxPosition(int sequence) {
        return (int) api.call("llama_memory_seq_pos_max", memory, sequence);
    }

    @Override
    public boolean canShift() {
        return (boolean) api.call("llama_memory_can_shift", memory);
    }

    @Override
    public void clear() {
        api.call("llama_memory_clear", memory, true);
    }
}
