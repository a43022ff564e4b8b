package io.rkllm.rag;

import java.util.List;

/**
 * The outcome of {@link RagPromptBuilder#build(RagInput)}.
 *
 * @param detected              whether retrieved context was found; when false the texts are the originals
 * @param userText              the new text of the last user message (the compact prompt, or the bare question)
 * @param systemText            the new text of the system message (the retrieved context and template
 *                              removed), or null when the request has no system message
 * @param question              the user's question as recovered from the template
 * @param sources               the sources kept, in citation order
 * @param nothingRelevant       the model was told the retrieved text had nothing relevant
 * @param followUp              the question was a conversational follow-up
 * @param recommendThinkingOff  RAG turn on a small context: switch thinking off
 * @param stats                 sizes and counts
 */
public record RagResult(boolean detected, String userText, String systemText, String question,
                        List<KeptSource> sources, boolean nothingRelevant, boolean followUp,
                        boolean recommendThinkingOff, RagStats stats) {
    public RagResult {
        sources = List.copyOf(sources);
    }

    static RagResult untouched(String userText, String systemText) {
        return new RagResult(false, userText, systemText, userText, List.of(), false, false, false, RagStats.NONE);
    }
}
