package io.rkllm.llama;

/**
 * The KvCache a context hands out: refuses sequence ids outside the context in Java (later llama.cpp builds
 * assert on them, which ends the process) and passes the rest to the generation's calls. In a context whose
 * sequences each have a cache of their own (not unified), llama.cpp copies a sequence into another only whole (it
 * asserts otherwise): a prefix is copied as the whole sequence, then the rest removed.
 */
final class CheckedKvCache implements KvCache {
    private final KvCache calls;
    private final int sequences;
    private final boolean ownCaches;

    CheckedKvCache(KvCache calls, int sequences) {
        this(calls, sequences, false);
    }

    CheckedKvCache(KvCache calls, int sequences, boolean ownCaches) {
        this.calls = calls;
        this.sequences = sequences;
        this.ownCaches = ownCaches;
    }

    /** Each sequence has a cache of its own (copies between them are whole). */
    boolean ownCaches() {
        return ownCaches;
    }

    /** A saved state was put into a sequence (the older generations keep count of what may hold cells). */
    void restored(int sequence) {
        if (calls instanceof ContextKvCache context) {
            context.restored(check(sequence));
        }
    }

    /** A successful decode put the batch's tokens into their sequences (the older generations keep count). */
    void decoded(Batch batch) {
        if (calls instanceof ContextKvCache context) {
            context.decoded(batch);
        }
    }

    private int check(int sequence) {
        if (sequence < 0 || sequence >= sequences) {
            throw new IllegalArgumentException("sequence " + sequence + "; the context holds sequences 0 to "
                    + (sequences - 1));
        }
        return sequence;
    }

    @Override
    public KvApi api() {
        return calls.api();
    }

    @Override
    public boolean remove(int sequence, int from, int to) {
        return calls.remove(sequence < 0 ? -1 : check(sequence), from, to);
    }

    @Override
    public void copy(int source, int target, int from, int to) {
        check(source);
        check(target);
        if (!ownCaches || source == target) {
            calls.copy(source, target, from, to);
            return;
        }
        calls.copy(source, target, -1, -1);
        if (from > 0) {
            calls.remove(target, 0, from);
        }
        if (to >= 0) {
            calls.remove(target, to, -1);
        }
    }

    @Override
    public void keepOnly(int sequence) {
        calls.keepOnly(check(sequence));
    }

    @Override
    public void shift(int sequence, int from, int to, int delta) {
        calls.shift(check(sequence), from, to, delta);
    }

    @Override
    public int maxPosition(int sequence) {
        return calls.maxPosition(check(sequence));
    }

    @Override
    public boolean canShift() {
        return calls.canShift();
    }

    @Override
    public void clear() {
        calls.clear();
    }
}
