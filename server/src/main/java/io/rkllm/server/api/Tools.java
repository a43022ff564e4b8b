package io.rkllm.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.rkllm.server.pipeline.request.ToolChoice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The OpenAI {@code tools} array (as the runtime's function calling takes it): names, and narrowing to one. */
public final class Tools {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Tools() {
    }

    public static List<String> names(String toolsJson) {
        List<String> names = new ArrayList<>();
        for (JsonNode tool : read(toolsJson)) {
            names.add(tool.path("function").path("name").asText());
        }
        return names;
    }

    /** {@code choice}, checked against the tools offered: forcing a call needs tools, a named one must be there. */
    public static ToolChoice offered(ToolChoice choice, Optional<String> toolsJson) {
        if (!(choice instanceof ToolChoice.Auto) && toolsJson.isEmpty()) {
            throw ApiException.invalid("tool_choice", "'tool_choice' requires 'tools'");
        }
        if (choice instanceof ToolChoice.Function fn && !names(toolsJson.orElseThrow()).contains(fn.name())) {
            throw ApiException.invalid("tool_choice", "tool_choice names the function '" + fn.name()
                    + "', which is not among the tools " + names(toolsJson.get()));
        }
        return choice;
    }

    /** The tools to offer for {@code choice}: only the named function when one is forced, else all. */
    public static Optional<String> only(Optional<String> toolsJson, ToolChoice choice) {
        if (toolsJson.isEmpty() || !(choice instanceof ToolChoice.Function fn)) {
            return toolsJson;
        }
        ArrayNode kept = JsonNodeFactory.instance.arrayNode();
        for (JsonNode tool : read(toolsJson.get())) {
            if (tool.path("function").path("name").asText().equals(fn.name())) {
                kept.add(tool);
            }
        }
        return Optional.of(kept.toString());
    }

    private static ArrayNode read(String toolsJson) {
        try {
            return (ArrayNode) JSON.readTree(toolsJson);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
