package io.rkllm.server.pipeline;

import io.rkllm.server.engine.contract.cache.Trim;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.Role;
import java.util.ArrayList;
import java.util.List;

/**
 * A request's conversation as the model should see it: the system prompt, the earlier turns
 * (assistant text with think blocks already stripped), and the trailing new user or tool messages.
 *
 * @param newMessageKeys the cache identities of the new messages: normally their own keys, but a
 *                       message the server rewrote (RAG) is remembered as the client will send it back
 */
public record Conversation(String systemPrompt, List<ChatMessage> history, List<ChatMessage> newMessages,
                           List<String> newMessageKeys) {

    public Conversation {
        history = List.copyOf(history);
        newMessages = List.copyOf(newMessages);
        newMessageKeys = List.copyOf(newMessageKeys);
        if (newMessageKeys.size() != newMessages.size()) {
            throw new IllegalArgumentException("one key per new message");
        }
    }

    public Conversation(String systemPrompt, List<ChatMessage> history, List<ChatMessage> newMessages) {
        this(systemPrompt, history, newMessages, MessageKeys.keys(newMessages));
    }

    /** The role of the run that sends the new messages: "tool" when they are tool results (system notes aside). */
    public String newRole() {
        for (int i = newMessages.size() - 1; i >= 0; i--) {
            Role role = newMessages.get(i).role();
            if (role != Role.SYSTEM) {
                return role == Role.TOOL ? "tool" : "user";
            }
        }
        return "user";
    }

    /**
     * The same conversation with {@code guidance} added to the newest message; the cache still remembers the
     * message as the client sent it (the client sends it back that way).
     */
    public Conversation withGuidance(String guidance) {
        List<ChatMessage> fresh = new ArrayList<>(newMessages);
        ChatMessage last = fresh.getLast();
        fresh.set(fresh.size() - 1, last.withContent(last.content() + "\n\n" + guidance));
        return new Conversation(systemPrompt, history, fresh, newMessageKeys);
    }

    /** The same conversation with the history messages {@code trim} leaves out left out. */
    public Conversation trimmed(Trim trim) {
        return new Conversation(systemPrompt, trim.kept(history), newMessages, newMessageKeys);
    }
}
