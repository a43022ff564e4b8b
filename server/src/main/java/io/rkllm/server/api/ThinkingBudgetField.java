package io.rkllm.server.api;

import io.rkllm.server.pipeline.request.ThinkingBudget;
import java.util.Optional;

/**
 * llama-server's thinking budget on chat requests: {@code reasoning_budget_tokens} (or {@code thinking_budget_tokens}),
 * -1 for none, 0 to close the reasoning at once, N for at most N tokens of it; and {@code reasoning_budget_message},
 * written before the reasoning is closed.
 */
public final class ThinkingBudgetField {
    /** A sentence or two: the message is written into the answer's reasoning. */
    private static final int MESSAGE_MAX_CHARS = 1_000;

    private ThinkingBudgetField() {
    }

    public static Optional<ThinkingBudget> of(FieldReader f) {
        String name = f.raw("reasoning_budget_tokens").isPresent() ? "reasoning_budget_tokens"
                : "thinking_budget_tokens";
        Optional<Integer> tokens = f.integer(name);
        String message = f.string("reasoning_budget_message").orElse("");
        if (message.length() > MESSAGE_MAX_CHARS) {
            throw ApiException.invalid("reasoning_budget_message", "'reasoning_budget_message' holds at most "
                    + MESSAGE_MAX_CHARS + " characters");
        }
        if (tokens.isEmpty() || tokens.get() == -1) {
            return Optional.empty();
        }
        if (tokens.get() < -1) {
            throw ApiException.invalid(name, "'" + name + "' is -1 (no budget), 0 (no reasoning) or a number of"
                    + " tokens");
        }
        return Optional.of(new ThinkingBudget(tokens.get(), message));
    }
}
