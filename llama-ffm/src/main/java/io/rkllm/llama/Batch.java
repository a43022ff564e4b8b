package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemorySegment;

/**
 * The tokens of one {@code llama_decode} call, in native memory that is reused from call to call: for each
 * token its position, the sequences it belongs to and whether its logits (or embedding) are wanted. Tokens of
 * several sequences in one batch are decoded together (continuous batching). Not thread-safe: filled and decoded
 * by the context's owner thread.
 */
public final class Batch implements AutoCloseable {
    private static final long N_TOKENS = Structs.offset(LlamaLayouts.BATCH, "n_tokens");
    private final Arena arena = Arena.ofShared();
    private final int capacity;
    private final int maxSequencesPerToken;
    private final MemorySegment tokens;
    private final MemorySegment positions;
    private final MemorySegment sequenceCounts;
    private final MemorySegment sequencePointers;
    private final MemorySegment sequenceIds;
    private final MemorySegment outputs;
    /** The {@code llama_batch} struct, its arrays' addresses written once: a decode sets only its token count. */
    private final MemorySegment struct;
    private int size;

    /**
     * @param capacity             most tokens (at most the context's batch size to be decoded in one call)
     * @param maxSequencesPerToken most sequences one token may belong to (1 unless a prompt is shared)
     */
    public Batch(int capacity, int maxSequencesPerToken) {
        if (capacity <= 0 || maxSequencesPerToken <= 0) {
            throw new IllegalArgumentException("a batch needs a positive capacity and sequences per token");
        }
        this.capacity = capacity;
        this.maxSequencesPerToken = maxSequencesPerToken;
        tokens = arena.allocate(JAVA_INT, capacity);
        positions = arena.allocate(JAVA_INT, capacity);
        sequenceCounts = arena.allocate(JAVA_INT, capacity);
        sequencePointers = arena.allocate(ADDRESS, capacity);
        sequenceIds = arena.allocate(JAVA_INT, (long) capacity * maxSequencesPerToken);
        outputs = arena.allocate(JAVA_BYTE, capacity);
        for (int i = 0; i < capacity; i++) {
            sequencePointers.setAtIndex(ADDRESS, i,
                    sequenceIds.asSlice((long) i * maxSequencesPerToken * Integer.BYTES));
        }
        GroupLayout layout = LlamaLayouts.BATCH;
        struct = arena.allocate(layout);
        struct.set(ADDRESS, Structs.offset(layout, "token"), tokens);
        struct.set(ADDRESS, Structs.offset(layout, "embd"), MemorySegment.NULL);
        struct.set(ADDRESS, Structs.offset(layout, "pos"), positions);
        struct.set(ADDRESS, Structs.offset(layout, "n_seq_id"), sequenceCounts);
        struct.set(ADDRESS, Structs.offset(layout, "seq_id"), sequencePointers);
        struct.set(ADDRESS, Structs.offset(layout, "logits"), outputs);
    }

    public int capacity() {
        return capacity;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public void clear() {
        size = 0;
    }

    /** Adds a token of one sequence at {@code position}; returns its index in the batch (for logits). */
    public int add(int token, int position, int sequence, boolean output) {
        requireRoom();
        sequenceIds.setAtIndex(JAVA_INT, (long) size * maxSequencesPerToken, sequence);
        return append(token, position, 1, output);
    }

    /** Adds a token that belongs to several sequences (a shared prompt); returns its index in the batch. */
    public int add(int token, int position, int[] sequences, boolean output) {
        requireRoom();
        if (sequences.length == 0 || sequences.length > maxSequencesPerToken) {
            throw new IllegalArgumentException("a token belongs to 1 to " + maxSequencesPerToken + " sequences");
        }
        for (int s = 0; s < sequences.length; s++) {
            sequenceIds.setAtIndex(JAVA_INT, (long) size * maxSequencesPerToken + s, sequences[s]);
        }
        return append(token, position, sequences.length, output);
    }

    private void requireRoom() {
        if (size == capacity) {
            throw new IllegalStateException("the batch is full (" + capacity + " tokens)");
        }
    }

    /** The token's own fields, its sequences written by the caller: its index in the batch. */
    private int append(int token, int position, int sequenceCount, boolean output) {
        tokens.setAtIndex(JAVA_INT, size, token);
        positions.setAtIndex(JAVA_INT, size, position);
        sequenceCounts.setAtIndex(JAVA_INT, size, sequenceCount);
        outputs.set(JAVA_BYTE, size, (byte) (output ? 1 : 0));
        return size++;
    }

    public int token(int index) {
        return tokens.getAtIndex(JAVA_INT, check(index));
    }

    public int position(int index) {
        return positions.getAtIndex(JAVA_INT, check(index));
    }

    public boolean output(int index) {
        return outputs.get(JAVA_BYTE, check(index)) != 0;
    }

    /** How many sequences the token at {@code index} belongs to. */
    public int sequenceCount(int index) {
        return sequenceCounts.getAtIndex(JAVA_INT, check(index));
    }

    /** The {@code s}-th sequence of the token at {@code index} (below its {@link #sequenceCount}). */
    public int sequence(int index, int s) {
        return sequenceIds.getAtIndex(JAVA_INT, (long) check(index) * maxSequencesPerToken + s);
    }

    /** The sequences of the token at {@code index}. */
    public int[] sequences(int index) {
        int count = sequenceCounts.getAtIndex(JAVA_INT, check(index));
        int[] ids = new int[count];
        for (int s = 0; s < count; s++) {
            ids[s] = sequenceIds.getAtIndex(JAVA_INT, (long) index * maxSequencesPerToken + s);
        }
        return ids;
    }

    private int check(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index);
        }
        return index;
    }

    /** The {@code llama_batch} struct (passed by value) describing the tokens added so far. */
    MemorySegment struct() {
        struct.set(JAVA_INT, N_TOKENS, size);
        return struct;
    }

    @Override
    public void close() {
        arena.close();
    }
}
