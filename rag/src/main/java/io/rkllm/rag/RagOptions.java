package io.rkllm.rag;

/**
 * Settings of the RAG prompt builder. Start from {@link #defaults()} and change what you need with
 * the {@code with...} methods. docs/rag.md explains each default and how it was chosen.
 *
 * @param enabled read and rewrite retrieved context at all; when false requests pass through untouched
 * @param cleanWeb clean web pages with {@link WebTextCleaner} (document chunks are never web-cleaned)
 * @param budgetShare largest share of the model's context the reference text may take
 * @param minBudgetTokens below this many tokens of room no reference text is added
 * @param overheadTokens tokens set aside for the chat template's role markers and rounding
 * @param maxPassages most passages put in the prompt
 * @param maxPassageChars a paragraph longer than this is cut at sentence ends
 * @param minPassageChars consecutive shorter paragraphs of one source are merged up to this size
 * @param minPassageScore passages scoring below this (0..1) are never used
 * @param minRelevance best relevance (0..1) under which the retrieved text counts as "nothing relevant"
 * @param relativeRelevance web passages less relevant than this share of the best passage are left out (documents: half of it; sources of one or two passages: a third)
 * @param relevanceWeight weight of relevance against quality in a passage's score (0..1)
 * @param neighbourRings passages on each side of a strong passage added while the budget allows (0 = none)
 * @param duplicateSimilarity share of a passage's word 3-shingles found in another from which it is a duplicate (0..1)
 * @param detectFollowUps recognise conversational follow-ups and keep unrelated fresh results out of them
 * @param thinkingOffMaxContext recommend thinking off on RAG turns when the model's context length is at most this
 * @param dateMode when to tell the model today's date
 * @param contextInUserMessage put the reference text in the last user message even when Open WebUI put the context in the
 *                              system message (keeps the system prompt stable for KV-cache reuse)
 */
public record RagOptions(boolean enabled, boolean cleanWeb, double budgetShare, int minBudgetTokens,
                         int overheadTokens, int maxPassages, int maxPassageChars, int minPassageChars,
                         double minPassageScore, double minRelevance, double relativeRelevance,
                         double relevanceWeight, int neighbourRings, double duplicateSimilarity,
                         boolean detectFollowUps, int thinkingOffMaxContext, DateMode dateMode,
                         boolean contextInUserMessage) {

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
        if (maxPassages < 1 || neighbourRings < 0) {
            throw new IllegalArgumentException("need maxPassages >= 1 and neighbourRings >= 0");
        }
        if (minPassageChars < 0 || maxPassageChars < Math.max(80, minPassageChars)) {
            throw new IllegalArgumentException("need 0 <= minPassageChars <= maxPassageChars and maxPassageChars >= 80");
        }
        for (double share : new double[] {minPassageScore, minRelevance, relativeRelevance, relevanceWeight,
                duplicateSimilarity}) {
            if (share < 0 || share > 1) {
                throw new IllegalArgumentException("scores, weights and similarities must be in [0, 1]: " + share);
            }
        }
        if (dateMode == null) {
            dateMode = DateMode.WHEN_RELEVANT;
        }
    }

    /** The measured defaults (see docs/rag.md). */
    public static RagOptions defaults() {
        return new RagOptions(true, true, 0.6, 64, 48, 12, 1000, 240, 0.12, 0.3, 0.5, 0.7, 2, 0.6, true, 8192,
                DateMode.WHEN_RELEVANT, true);
    }

    public RagOptions withEnabled(boolean v) {
        return new RagOptions(v, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages, maxPassageChars,
                minPassageChars, minPassageScore, minRelevance, relativeRelevance, relevanceWeight, neighbourRings,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withMaxPassages(int v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, v, maxPassageChars,
                minPassageChars, minPassageScore, minRelevance, relativeRelevance, relevanceWeight, neighbourRings,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withMaxPassageChars(int v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages, v,
                minPassageChars, minPassageScore, minRelevance, relativeRelevance, relevanceWeight, neighbourRings,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withMinPassageChars(int v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, v, minPassageScore, minRelevance, relativeRelevance, relevanceWeight, neighbourRings,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withMinRelevance(double v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, v, relativeRelevance, relevanceWeight,
                neighbourRings, duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode,
                contextInUserMessage);
    }

    public RagOptions withRelativeRelevance(double v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, v, relevanceWeight, neighbourRings,
                duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withNeighbourRings(int v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relativeRelevance, relevanceWeight,
                v, duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, contextInUserMessage);
    }

    public RagOptions withThinkingOffMaxContext(int v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relativeRelevance, relevanceWeight,
                neighbourRings, duplicateSimilarity, detectFollowUps, v, dateMode, contextInUserMessage);
    }

    public RagOptions withDateMode(DateMode v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relativeRelevance, relevanceWeight,
                neighbourRings, duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, v, contextInUserMessage);
    }

    public RagOptions withContextInUserMessage(boolean v) {
        return new RagOptions(enabled, cleanWeb, budgetShare, minBudgetTokens, overheadTokens, maxPassages,
                maxPassageChars, minPassageChars, minPassageScore, minRelevance, relativeRelevance, relevanceWeight,
                neighbourRings, duplicateSimilarity, detectFollowUps, thinkingOffMaxContext, dateMode, v);
    }

}
