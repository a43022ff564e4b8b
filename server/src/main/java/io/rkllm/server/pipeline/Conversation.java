package io.rkllm.server.pipeline;

import java.util.List;

/**
 * A request's conversation as the model should see it: the system prompt, the earlier turns
 * (assistant text with think blocks already stripped), and the trailing new user or tool messages.
 */
public record Conversation(String systemPrompt, List<ChatMessage> history, List<ChatMessage> newMessages) {

    public Conversation {
        history = List.copyOf(history);
        newMessages = List.copyOf(newMessages);
    }

    /** The role of the run that sends the new messages: "tool" when they are tool results. */
    public String newRole() {
        return newMessages.getLast().role() == Role.TOOL ? "tool" : "user";
    }
}
