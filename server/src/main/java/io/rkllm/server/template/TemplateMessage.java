package io.rkllm.server.template;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One message as a chat template reads it (transformers' message dict).
 *
 * @param role {@code system}, {@code user}, {@code assistant} or {@code tool}
 * @param content its text (an assistant's without its reasoning)
 * @param toolCalls an assistant's calls
 * @param toolCallId the call a tool result answers
 * @param reasoning an assistant's reasoning, for the templates that write it back ({@code reasoning_content}, and
 *                  gpt-oss's {@code thinking})
 */
public record TemplateMessage(String role, String content, List<Call> toolCalls, Optional<String> toolCallId,
                              Optional<String> reasoning) {

    public TemplateMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
        toolCalls = List.copyOf(toolCalls);
        Objects.requireNonNull(toolCallId, "toolCallId");
        Objects.requireNonNull(reasoning, "reasoning");
    }

    public static TemplateMessage of(String role, String content) {
        return new TemplateMessage(role, content, List.of(), Optional.empty(), Optional.empty());
    }

    /** A call of an earlier answer: its arguments as the JSON text the model wrote. */
    public record Call(String id, String name, String argumentsJson) {
    }
}
