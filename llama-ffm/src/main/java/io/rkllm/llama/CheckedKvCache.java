package io.rkllm.llama;

/**
 * The KvCache a context hands out: refuses sequence ids outside the context in Java (later llama.cpp builds
 * assert on them, which ends the process) and passes the rest to the generation's calls.
 */
final class CheckedKvCache implements KvCache {
    private final KvCache calls;
    private final int sequences;

    CheckedKvCache(KvCache calls, int sequences) {
        this.calls = calls;
        this.sequences = sequences;
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
        calls.copy(check(source), check(target), from, to);
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
