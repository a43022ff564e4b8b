package io.rkllm.server.template;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a render is asked beside the conversation: thinking on or off ({@code enable_thinking}), how hard to think
 * ({@code reasoning_effort}: gpt-oss's low, medium, high), and the client's own template arguments
 * ({@code chat_template_kwargs}), which come last and win.
 */
public record TemplateSwitches(boolean thinking, Optional<String> effort, Map<String, Object> extra) {
    public TemplateSwitches {
        Objects.requireNonNull(effort, "effort");
        extra = Map.copyOf(extra);
    }

    /** Thinking on or off, nothing else. */
    public static TemplateSwitches thinking(boolean value) {
        return new TemplateSwitches(value, Optional.empty(), Map.of());
    }
}
