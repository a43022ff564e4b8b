package io.rkllm.llama;

/**
 * What a context takes in one {@code llama_decode}.
 *
 * @param batchLimit      {@code n_batch}: most tokens a decode takes
 * @param microBatchLimit {@code n_ubatch}: most tokens computed at once (a non-causal model's whole batch)
 * @param sequenceLimit   {@code n_seq_max}
 * @param causal          the model attends only to earlier tokens
 * @param vocabulary      the model's vocabulary size
 */
record BatchLimits(int batchLimit, int microBatchLimit, int sequenceLimit, boolean causal, int vocabulary) {

    /**
     * Refuses, in Java, the batches llama.cpp answers with an assertion or a C++ exception (either ends the
     * process): empty or larger than {@code n_batch}, a token outside the vocabulary, a sequence outside
     * {@code n_seq_max}, a negative position, more tokens than a micro-batch for a non-causal model.
     */
    void check(Batch batch) {
        if (batch.isEmpty()) {
            throw new IllegalArgumentException("an empty batch");
        }
        if (batch.size() > batchLimit) {
            throw new IllegalArgumentException("a batch of " + batch.size() + " tokens; the context takes at most "
                    + batchLimit + " per decode");
        }
        if (!causal && batch.size() > microBatchLimit) {
            throw new IllegalArgumentException("a batch of " + batch.size() + " tokens for a non-causal model; it "
                    + "takes at most " + microBatchLimit + " (n_ubatch) at once");
        }
        for (int i = 0; i < batch.size(); i++) {
            int token = batch.token(i);
            if (token < 0 || token >= vocabulary) {
                throw new IllegalArgumentException("token " + token + " at batch entry " + i
                        + " is outside the vocabulary of " + vocabulary);
            }
            if (batch.position(i) < 0) {
                throw new IllegalArgumentException("a negative position at batch entry " + i);
            }
            for (int s = 0, n = batch.sequenceCount(i); s < n; s++) {
                int sequence = batch.sequence(i, s);
                if (sequence < 0 || sequence >= sequenceLimit) {
                    throw new IllegalArgumentException("sequence " + sequence + " at batch entry " + i
                            + "; the context holds sequences 0 to " + (sequenceLimit - 1));
                }
            }
        }
    }
}
