package io.rkllm.llama;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@link KvCache} through the calls that take the context: {@code llama_kv_self_*} or {@code llama_kv_cache_*}.
 * Their {@code seq_pos_max} answers 0 for an empty sequence as for one that holds position 0 alone, so this
 * class also notes which sequences can hold anything (decoded into, copied into, not emptied since) and answers
 * -1 for the others, as the later generations do.
 */
final class ContextKvCache implements KvCache {
    private final NativeLlama api;
    private final KvApi generation;
    private final MemorySegment context;
    private final String p;
    private final boolean[] mayHold;

    ContextKvCache(NativeLlama api, KvApi generation, MemorySegment context, int sequences) {
        this.api = api;
        this.generation = generation;
        this.context = context;
        this.p = generation.prefix();
        this.mayHold = new boolean[sequences];
    }

    /** A successful decode put the batch's tokens into their sequences. */
    void decoded(Batch batch) {
        for (int i = 0; i < batch.size(); i++) {
            for (int s = 0, n = batch.sequenceCount(i); s < n; s++) {
                int sequence = batch.sequence(i, s);
                if (sequence >= 0 && sequence < mayHold.length) {
                    mayHold[sequence] = true;
                }
            }
        }
    }

    /** A saved state was put into the sequence. */
    void restored(int sequence) {
        if (sequence >= 0 && sequence < mayHold.length) {
            mayHold[sequence] = true;
        }
    }

    static void bind(NativeLlama api, KvApi generation) {
        String p = generation.prefix();
        need(api, p + "seq_rm", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
        need(api, p + "seq_cp", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        need(api, p + "seq_keep", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        need(api, p + "seq_add", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        need(api, p + "seq_pos_max", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        need(api, p + "clear", FunctionDescriptor.ofVoid(ADDRESS));
        need(api, p + "can_shift", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
    }

    static void need(NativeLlama api, String symbol, FunctionDescriptor descriptor) {
        if (!api.bind(symbol, descriptor)) {
            throw new LlamaException("the library does not export " + symbol);
        }
    }

    @Override
    public KvApi api() {
        return generation;
    }

    @Override
    public boolean remove(int sequence, int from, int to) {
        boolean removed = (boolean) api.call(p + "seq_rm", context, sequence, from, to);
        if (removed && from <= 0 && to < 0) {
            if (sequence < 0) {
                java.util.Arrays.fill(mayHold, false);
            } else if (sequence < mayHold.length) {
                mayHold[sequence] = false;
            }
        }
        return removed;
    }

    @Override
    public void copy(int source, int target, int from, int to) {
        api.call(p + "seq_cp", context, source, target, from, to);
        if (target >= 0 && target < mayHold.length && source >= 0 && source < mayHold.length) {
            mayHold[target] |= mayHold[source];
        }
    }

    @Override
    public void keepOnly(int sequence) {
        api.call(p + "seq_keep", context, sequence);
        for (int s = 0; s < mayHold.length; s++) {
            mayHold[s] &= s == sequence;
        }
    }

    @Override
    public void shift(int sequence, int from, int to, int delta) {
        api.call(p + "seq_add", context, sequence, from, to, delta);
    }

    @Override
    public int maxPosition(int sequence) {
        int max = (int) api.call(p + "seq_pos_max", context, sequence);
        return max == 0 && sequence >= 0 && sequence < mayHold.length && !mayHold[sequence] ? -1 : max;
    }

    @Override
    public boolean canShift() {
        return (boolean) api.call(p + "can_shift", context);
    }

    @Override
    public void clear() {
        api.call(p + "clear", context);
        java.util.Arrays.fill(mayHold, false);
    }
}
