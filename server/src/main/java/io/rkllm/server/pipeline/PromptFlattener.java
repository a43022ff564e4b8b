package io.rkllm.server.pipeline;

import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.Role;
import io.rkllm.server.pipeline.request.ToolCallRecord;
import java.util.List;

/**
 * Writes turns as plain text, the way the reference server does when the KV cache does not hold a
 * conversation: earlier turns become {@code User: ...} / {@code Assistant: ...} lines inside one user
 * turn, followed by the new message.
 */
public final class PromptFlattener {
    private PromptFlattener() {
    }

    /** The prompt text for a full resend of {@code conversation} (system prompt not included). */
    public static String flatten(Conversation conversation) {
        StringBuilder out = new StringBuilder();
        for (ChatMessage m : conversation.history()) {
            out.append(turn(m));
        }
        List<ChatMessage> fresh = conversation.newMessages();
        if (out.isEmpty() && fresh.size() == 1 && fresh.getFirst().role() == Role.USER) {
            return fresh.getFirst().content();
        }
        return out.append(newPart(fresh)).toString().stripTrailing();
    }

    /** The new messages' part of a flattened prompt that has earlier turns before it. */
    static String newPart(List<ChatMessage> fresh) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < fresh.size(); i++) {
            ChatMessage m = fresh.get(i);
            if (i == fresh.size() - 1 && m.role() == Role.USER) {
                out.append("User: ").append(m.content());
            } else {
                out.append(turn(m));
            }
        }
        return out.toString();
    }

    /** The text of new messages sent on top of a cached conversation (role user or tool). */
    public static String incremental(List<ChatMessage> fresh) {
        if (fresh.size() == 1 && fresh.getFirst().role() != Role.SYSTEM) {
            return fresh.getFirst().content();
        }
        StringBuilder out = new StringBuilder();
        for (ChatMessage m : fresh) {
            if (!out.isEmpty()) {
                out.append("\n\n");
            }
            // system text inside the turn the runtime frames as the user's, said to be the system's
            out.append(m.role() == Role.SYSTEM ? "System: " : "").append(m.content());
        }
        return out.toString();
    }

    /** One earlier turn as a flattened prompt writes it. */
    static String turn(ChatMessage m) {
        StringBuilder out = new StringBuilder();
        switch (m.role()) {
            case USER -> out.append("User: ").append(m.content()).append("\n\n");
            case ASSISTANT -> {
                out.append("Assistant: ").append(m.content());
                for (ToolCallRecord call : m.toolCalls()) {
                    out.append(m.content().isEmpty() ? "" : "\n").append("<tool_call>\n{\"name\": \"")
                            .append(call.name()).append("\", \"arguments\": ").append(call.argumentsJson())
                            .append("}\n</tool_call>");
                }
                out.append("\n\n");
            }
            case TOOL -> out.append("Tool result: ").append(m.content()).append("\n\n");
            case SYSTEM -> out.append("System: ").append(m.content()).append("\n\n");
        }
        return out.toString();
    }
}
