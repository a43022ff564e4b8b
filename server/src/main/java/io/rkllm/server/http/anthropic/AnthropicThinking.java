package io.rkllm.server.http.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.FieldReader;
import io.rkllm.server.pipeline.request.Thinking;
import io.rkllm.server.pipeline.request.ThinkingBudget;
import java.util.Optional;

/**
 * Anthropic's {@code thinking}: {@code {"type": "enabled", "budget_tokens": N}} turns thinking on with at most N
 * tokens of it; {@code adaptive} and {@code between_tools} turn it on; absent or {@code disabled} leaves it off, as on
 * Anthropic's API.
 */
final class AnthropicThinking {
    private AnthropicThinking() {
    }

    static Thinking of(FieldReader f) {
        Optional<JsonNode> thinking = f.raw("thinking");
        if (thinking.isEmpty()) {
            return Thinking.of(Optional.of(false));
        }
        if (!thinking.get().isObject()) {
            throw ApiException.invalid("thinking", "'thinking' must be an object with a 'type'");
        }
        String type = thinking.get().path("type").asText("");
        boolean on = switch (type) {
            case "enabled", "adaptive", "between_tools" -> true;
            case "disabled" -> false;
            default -> throw ApiException.invalid("thinking.type", "'thinking.type' must be enabled or disabled");
        };
        JsonNode tokens = thinking.get().path("budget_tokens");
        Optional<Integer> budget = Optional.empty();
        if (!tokens.isMissingNode() && !tokens.isNull()) {
            if (!tokens.canConvertToExactIntegral() || !tokens.canConvertToInt() || tokens.asInt() < 0) {
                throw ApiException.invalid("thinking.budget_tokens", "'thinking.budget_tokens' must be a number of"
                        + " tokens (an integer, 0 or more)");
            }
            budget = Optional.of(tokens.asInt());
        }
        return Thinking.of(Optional.of(on)).withBudget(on ? budget.map(n -> new ThinkingBudget(n, ""))
                : Optional.empty());
    }
}
