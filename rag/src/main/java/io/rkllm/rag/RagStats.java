package io.rkllm.rag;

/**
 * Figures about one build, for logs and metrics.
 *
 * @param inputChars         characters of retrieved text received
 * @param outputChars        characters of reference text put in the prompt
 * @param passagesConsidered passages after cleaning and splitting
 * @param duplicatesRemoved  passages dropped as near-duplicates of another
 * @param passagesKept       passages put in the prompt
 * @param budgetTokens       tokens the reference text was allowed
 * @param usedTokens         tokens the reference text used
 */
public record RagStats(int inputChars, int outputChars, int passagesConsidered, int duplicatesRemoved,
                       int passagesKept, int budgetTokens, int usedTokens) {
    static final RagStats NONE = new RagStats(0, 0, 0, 0, 0, 0, 0);
}
