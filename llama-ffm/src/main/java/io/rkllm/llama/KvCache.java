package io.rkllm.llama;

/**
 * One context's KV cache by sequence, the same for every {@link KvApi} generation. Positions are token positions
 * within a sequence; a range is {@code [from, to)}, with a negative bound meaning "open" (from the start, to the
 * end). Token-level prefix reuse is: keep the common prefix, {@link #remove} the rest, decode only the new
 * tokens from the first removed position.
 */
public interface KvCache {

    KvApi api();

    /** Removes a sequence's positions in the range (all sequences when {@code sequence < 0}); false if it cannot. */
    boolean remove(int sequence, int from, int to);

    /** Makes {@code target} share {@code source}'s cells in the range (a common prefix for a second conversation). */
    void copy(int source, int target, int from, int to);

    /** Removes every sequence but this one. */
    void keepOnly(int sequence);

    /** Adds {@code delta} to the positions of a sequence's range (a context shift), when {@link #canShift()}. */
    void shift(int sequence, int from, int to, int delta);

    /** The largest position the sequence holds, or -1 when it is empty. */
    int maxPosition(int sequence);

    boolean canShift();

    /** Empties the whole cache. */
    void clear();
}
