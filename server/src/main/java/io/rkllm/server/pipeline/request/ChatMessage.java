package io.rkllm.server.pipeline.request;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One message of a conversation: its text, the tool-calling parts the runtime understands, the pictures attached to
 * it (in the order the client gave them; only vision models see them), and an earlier answer's reasoning as the
 * client sent it back (templates that write reasoning again get it).
 */
public record ChatMessage(Role role, String content, List<ToolCallRecord> toolCalls, Optional<String> toolCallId,
                          List<ChatImage> images, Optional<String> reasoning) {

    public ChatMessage {
        images = List.copyOf(images);
        Objects.requireNonNull(reasoning, "reasoning");
    }

    /** A message without reasoning. */
    public ChatMessage(Role role, String content, List<ToolCallRecord> toolCalls, Optional<String> toolCallId,
                       List<ChatImage> images) {
        this(role, content, toolCalls, toolCallId, images, Optional.empty());
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
        return new ChatMessage(role, value, toolCalls, toolCallId, images, reasoning);
    }

    public ChatMessage withImages(List<ChatImage> value) {
        return new ChatMessage(role, content, toolCalls, toolCallId, value, reasoning);
    }

    /** The same message with the reasoning its answer came with (blank: none). */
    public ChatMessage withReasoning(Optional<String> value) {
        return new ChatMessage(role, content, toolCalls, toolCallId, images, value.filter(r -> !r.isBlank()));
    }
}
