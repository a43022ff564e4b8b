package io.rkllm.server.pipeline.request;

import java.util.Objects;

/**
 * The most tokens a request's reasoning may take (llama-server's {@code reasoning_budget_tokens}, Anthropic's
 * {@code thinking.budget_tokens}): when they are spent, the model is made to close its reasoning and answer.
 *
 * @param tokens the tokens the reasoning may take; 0 closes it at once
 * @param message text written into the reasoning before it is closed (llama-server's
 *                {@code reasoning_budget_message}), e.g. "Time is up, answering now."; empty for none
 */
public record ThinkingBudget(int tokens, String message) {
    public ThinkingBudget {
        if (tokens < 0) {
            throw new IllegalArgumentException("a thinking budget of " + tokens + " tokens");
        }
        Objects.requireNonNull(message, "message");
    }
}
