package io.rkllm.server.backend.llama;

import io.rkllm.llama.Sampler;
import java.util.Optional;

/** One generation being decoded in a sequence: the decode loop's record of a run from its admission to its end. */
final class DecodingGeneration {
    final SubmittedGeneration request;
    final SlotTable.Slot slot;
    final int[] prompt;
    /** The prompt's text token by token, which the sequence holds as it decodes them. */
    final Spelling spelling;
    final int keep;
    Sampler sampler;
    /** A grammar that starts after the reasoning's end, until it does. */
    Optional<AnswerGrammar> grammarLater;
    /** The reasoning's budget, when the request has one. */
    final Optional<ReasoningLimit> reasoningLimit;
    final Utf8Pieces utf8 = new Utf8Pieces();
    final StringBuilder answer = new StringBuilder();
    final long admitted = System.nanoTime();
    int prefilled;
    int chunk;
    int output = -1;
    int lastToken = -1;
    /** The end-of-generation token that ended the answer, or -1. */
    int endToken = -1;
    boolean generating;
    int generated;
    long firstToken;

    DecodingGeneration(SubmittedGeneration request, SlotTable.Slot slot, int[] prompt, Spelling spelling, int keep,
                       Sampler sampler) {
        this.request = request;
        this.slot = slot;
        this.prompt = prompt;
        this.spelling = spelling;
        this.keep = keep;
        this.prefilled = keep;
        this.sampler = sampler;
        this.grammarLater = request.grammar().filter(g -> g.after().isPresent());
        this.reasoningLimit = request.prompt().settings().reasoningBudget().map(ReasoningLimit::new);
    }

    /** The position of the next token to decode: what the sequence holds. */
    int position() {
        return slot.length();
    }
}
