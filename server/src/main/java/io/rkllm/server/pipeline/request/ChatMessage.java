package io.rkllm.server.pipeline.request;

import java.util.List;
import java.util.Optional;

/**
 * One message of a conversation: its text, the tool-calling parts the runtime understands, and the pictures
 * attached to it (in the order the client gave them; only vision models see them).
 */
public record ChatMessage(Role role, String content, List<ToolCallRecord> toolCalls, Optional<String> toolCallId,
                          List<ChatImage> images) {

    public ChatMessage {
        images = List.copyOf(images);
    }

    /** A message without pictures. */
    public ChatMessage(Role role, String content, List<ToolCallRecord> toolCalls, Optional<String> toolCallId) {
        this(role, content, toolCalls, toolCallId, List.of());
    }

    public static ChatMessage of(Role role, String content) {
        return new ChatMessage(role, content, List.of(), Optional.empty());
    }

    /** The same message with other text, its pictures kept. */
    public ChatMessage withContent(String value) {
        return new ChatMessage(role, value, toolCalls, toolCallId, images);
    }

    public ChatMessage withImages(List<ChatImage> value) {
        return new ChatMessage(role, content, toolCalls, toolCallId, value);
    }
}
