package io.rkllm.server.pipeline;

import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.Role;
import java.util.List;
import java.util.Optional;

/**
 * Fits a conversation into the model's context for a full resend: the oldest exchanges are left out, whole,
 * until the prompt (estimated) and the room for the answer fit. The system prompt and the newest messages
 * always stay.
 */
final class ContextFit {
    /** Room always left for the answer when checking the context. */
    static final int MIN_OUTPUT_TOKENS = 16;
    /** The estimate is a guess; leave a margin before the runtime's hard limit. */
    static final double ESTIMATE_MARGIN = 1.10;

    /** What fits: the history messages left out and the estimate of the rest. */
    record Fit(int droppedMessages, int promptEstimate) {
    }

    private final TokenEstimator estimator;

    ContextFit(TokenEstimator estimator) {
        this.estimator = estimator;
    }

    /** The fewest whole exchanges to leave out so that the prompt and {@code reserve} fit the context. */
    Fit fit(ModelDescriptor model, Optional<PromptFormat> format, Conversation c, Optional<String> tools,
            int reserve) {
        int context = model.contextLength();
        int dropped = 0;
        int estimate = estimateFullPrompt(model, format, c, tools, dropped);
        while (fits(estimate, reserve, context) < 0 && dropped < c.history().size()) {
            dropped = nextExchangeStart(c.history(), dropped);
            estimate = estimateFullPrompt(model, format, c, tools, dropped);
        }
        return new Fit(dropped, estimate);
    }

    /** The prompt estimate of a full resend of the whole conversation, nothing left out. */
    int estimate(ModelDescriptor model, Optional<PromptFormat> format, Conversation c, Optional<String> tools) {
        return estimateFullPrompt(model, format, c, tools, 0);
    }

    /** Whether the prompt leaves at least the minimum room for an answer. */
    static boolean leavesRoomForAnswer(int estimate, int context) {
        return fits(estimate, MIN_OUTPUT_TOKENS, context) >= 0;
    }

    /** What may be generated after a prompt of {@code estimate} tokens. */
    static int room(int estimate, int context) {
        return context - (int) Math.ceil(estimate * ESTIMATE_MARGIN);
    }

    /** The prompt estimate of a full resend with the first {@code dropped} history messages left out. */
    private int estimateFullPrompt(ModelDescriptor model, Optional<PromptFormat> format, Conversation c,
                                   Optional<String> tools, int dropped) {
        String template = format.map(f -> f.template(c.systemPrompt(), true))
                .map(t -> t.systemPrompt() + t.promptPrefix() + t.promptPostfix()).orElse(c.systemPrompt());
        Conversation trimmed = c.withoutFirst(dropped);
        return estimator.estimate(model.id(), template + tools.orElse("") + PromptFlattener.flatten(trimmed));
    }

    /** Negative when the prompt and the reserve do not fit the context. */
    static int fits(int estimate, int reserve, int context) {
        return context - (int) Math.ceil(estimate * ESTIMATE_MARGIN) - reserve;
    }

    /** Trimming drops whole exchanges: the kept history starts at a user message. */
    private static int nextExchangeStart(List<ChatMessage> history, int from) {
        int i = from + 1;
        while (i < history.size() && history.get(i).role() != Role.USER) {
            i++;
        }
        return i;
    }
}
