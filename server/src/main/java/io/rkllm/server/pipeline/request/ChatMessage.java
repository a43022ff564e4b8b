package io.rkllm.server.pipeline.request;

import java.util.List;
import java.util.Optional;

/** One message of a conversation, text only, with the tool-calling parts the runtime understands. */
public record ChatMessage(Role role, String content, List<ToolCallRecord> toolCalls, Optional<String> toolCallId) {

    public static ChatMessage of(Role role, String content) {
        return new ChatMessage(role, content, List.of(), Optional.empty());
    }
}
