package io.rkllm.rag;

/**
 * Settings of the RAG prompt builder. Start from {@link #defaults()} and change what you need with
 * the {@code with...} methods. docs/rag.md explains each default and how it was chosen.
 *
 * @param enabled               rewrite retrieved context at all; when false requests pass through untouched
 * @param cleanWeb              clean web pages with {@link WebTextCleaner} (document chunks are never web-cleaned)
 * @param budgetShare           largest share of the model's context the reference text may take
 * @param minBudgetTokens       below this many tokens of room no reference text is added
 * @param overheadTokens        tokens set aside for the chat template, the instruction and rounding
 * @param maxPassages           most passages put in the prompt
 * @param maxPassageChars       a paragraph longer than this is split at sentence ends
 * @param minPassageChars       shorter consecutive paragraphs of a source are merged up to this size
 * @param minPassageScore       passages scoring below this (0..1) are never used
 * @param minRelevance          best relevance (0..1) under which the context counts as "nothing relevant"
 * @param relevanceWeight       weight of relevance against passage quality in a passage's score (0..1)
 * @param duplicateSimilarity   word-shingle resemblance from which two passages count as duplicates (0..1)
 * @param detectFollowUps       recognise conversational follow-ups and keep unrelated fresh results out of them
 * @param thinkingOffMaxContext recommend thinking off on RAG turns when the context length is at most this
 * @param dateMode              when to tell the model today's date
 * @param contextInUserMessage  always put the reference text in the last user message (keeps the system
 *                              prompt stable, so the KV cache of a conversation can be reused)
 */
public record RagOptions(boolean enabled, boolean cleanWeb, double budgetShare, int minBudgetTokens,
                         int overheadTokens, int maxPassages, int maxPassageChars, int minPassageChars,
                         double minPassageScore, double minRelevance, double relevanceWeight,
                         double duplicateSimilarity, boolean detectFollowUps, int thinkingOffMaxContext,
                         DateMode dateMode, boolean contextInUserMessage) {

    /** When the prompt states today's date. */
    public enum DateMode {
        /** Never. */
        NEVER,
        /** When the template or the question refers to dates or time ("today", "latest", "2025"...). */
        WHEN_RELEVANT,
        /** On every RAG turn. */
        ALWAYS
    }

    public RagOptions {
        if (budgetShare <= 0 || budgetShare > 1) {
            throw new IllegalArgumentException("budgetShare must be in (0, 1]: " + budgetShare);
        }
        if (maxPassages < 1) {
            throw new IllegalArgumentException("maxPassages must be >= 1: " + maxPassages);
        }
        if (minPassageChars < 0 || maxPassageChars < Math.max(80, minPassageChars)) {
            throw new IllegalArgumentException("need 0 <= minPassageChars <= maxPassageChars, maxPassageChars >= 80");
        }
        if (relevanceWeight < 0 || relevanceWeight > 1 || duplicateSimilarity <= 0 || duplicateSimilarity > 1) {
            throw new IllegalArgumentException("relevanceWeight and duplicateSimilarity must be in [0, 1]");
        }
        if (dateMode == null) {
            dateMode = DateMode.WHEN_RELEVANT;
        }
    }

    /** The measured defaults (see docs/rag.md). */
    public static RagOptions defaults() {
        return new RagOptions(true, true, 0.6, 64, 48, 12, 700, 240, 0.12, 0.2, 0.7, 0.5, true, 8192,
                DateMode.WHEN_RELEVANT, true);
    }

    public RagOptions withEnabled(boolean v) {
        return new RagOptions(v, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relevanceWeight,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withCleanWeb(boolean v) {
        return new RagOptions(enabled, v, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relevanceWeight,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withBudgetShare(double v) {
        return new RagOptions(enabled, cleanWeb, v, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relevanceWeight,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withMaxPassages(int v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, v,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relevanceWeight,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withPassageChars(int min, int max) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                max, min, minPassageScore, minRelevance, relevanceWeight,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withMinPassageScore(double v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, v, minRelevance, relevanceWeight,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withMinRelevance(double v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, v, relevanceWeight,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withRelevanceWeight(double v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, v,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withDuplicateSimilarity(double v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relevanceWeight,
                v, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withDetectFollowUps(boolean v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relevanceWeight,
                duplicateSimilarity, v, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withThinkingOffMaxContext(int v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relevanceWeight,
                duplicateSimilarity, detectFollowUps, v, dateMode, contextInUserMessage);
    }

    public RagOptions withDateMode(DateMode v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relevanceWeight,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, v, contextInUserMessage);
    }

    public RagOptions withContextInUserMessage(boolean v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relevanceWeight,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, v);
    }
}
