package io.rkllm.server.pipeline.output;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/**
 * Reads one JSON call, the body of a Hermes/Qwen {@code <tool_call>} block: {@code {"name": "...", "arguments":
 * {...}}}, where {@code arguments} may also be a JSON string (or be called {@code parameters}, or be absent:
 * {@code {}}). Immutable and thread-safe; create once and share.
 */
public final class ToolCallParser implements CallReader {

    /**
     * The call in {@code block} (the text between the tags; surrounding whitespace allowed), or empty when it
     * is not one JSON object with a non-blank string {@code name}.
     */
    public Optional<FunctionCall> parse(String block) {
        return call(CallJson.readTree(block));
    }

    /** The call a JSON object describes by its {@code name} and {@code arguments} (or {@code parameters}). */
    public static Optional<FunctionCall> call(JsonNode root) {
        if (root == null || !root.isObject()) {
            return Optional.empty();
        }
        JsonNode name = root.get("name");
        if (name == null || !name.isTextual() || name.asText().isBlank()) {
            return Optional.empty();
        }
        JsonNode arguments = root.has("arguments") ? root.get("arguments") : root.get("parameters");
        return Optional.of(new FunctionCall(name.asText().strip(), CallJson.arguments(arguments)));
    }

    @Override
    public Optional<List<FunctionCall>> read(String body, OfferedTools tools) {
        return parse(body).map(List::of);
    }
}
