package io.rkllm.server.tools.launch;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Which served model an agent gets when the user names none, and what to say when its context is small for the
 * agent: agents send thousands of tokens of instructions and tool schemas before the user's first word
 * (docs/agents.md has the measurements).
 */
final class ModelChoice {
    private ModelChoice() {
    }

    /** A chat model with tool calling: a loaded one first (no load wait), then the longest context. */
    static Optional<JsonNode> forAgents(List<JsonNode> models) {
        return models.stream()
                .filter(m -> m.path("capabilities").path("tools").asBoolean(false))
                .filter(m -> m.path("capabilities").path("chat").asBoolean(true))
                .max(Comparator.<JsonNode>comparingInt(m -> m.path("loaded").asBoolean(false) ? 1 : 0)
                        .thenComparingInt(m -> m.path("context_length").asInt(0)));
    }

    /** The tokens of each agent's first request with its default tools (docs/agents.md). */
    static int firstPromptTokens(String client) {
        return switch (client) {
            case "claude" -> 17_000;
            case "codex" -> 9_000;
            case "opencode" -> 8_000;
            case "continue" -> 2_000;
            default -> 0;
        };
    }

    static Optional<String> contextNote(String client, int context) {
        int needed = firstPromptTokens(client);
        if (context > 0 && context < needed * 3 / 2) {
            return Optional.of(client + "'s first request alone is about " + needed + " tokens, and this model's"
                    + " context is " + context + ": " + (context < needed ? "it will not fit" : "little room is left")
                    + "; see docs/agents.md for models and context lengths that work and how to trim the agent's"
                    + " tools");
        }
        return Optional.empty();
    }
}
