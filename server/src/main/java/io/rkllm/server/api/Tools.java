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

    /**
     * The request's {@code tool_choice}, as both of OpenAI's APIs write it: empty for "none" (the tools are not
     * offered), else auto (also when it is absent), required, or one function, named as the chat API nests it
     * ({@code {"type": "function", "function": {"name": ...}}}) or as the Responses API writes it flat
     * ({@code {"type": "function", "name": ...}}), which must be among the tools.
     *
     * @param shapes how the API's own documentation writes a named function, for the error message
     */
    public static Optional<ToolChoice> choice(FieldReader f, Optional<String> toolsJson, String shapes) {
        Optional<JsonNode> node = f.raw("tool_choice");
        if (node.isEmpty()) {
            return Optional.of(ToolChoice.AUTO);
        }
        JsonNode c = node.get();
        ToolChoice choice;
        if (c.isTextual() && c.asText().equals("none")) {
            return Optional.empty();
        } else if (c.isTextual() && c.asText().equals("auto")) {
            choice = ToolChoice.AUTO;
        } else if (c.isTextual() && c.asText().equals("required")) {
            choice = ToolChoice.REQUIRED;
        } else if (c.isObject() && c.path("function").path("name").isTextual()) {
            choice = new ToolChoice.Function(c.path("function").path("name").asText());
        } else if (c.isObject() && c.path("type").asText().equals("function") && c.path("name").isTextual()) {
            choice = new ToolChoice.Function(c.path("name").asText());
        } else {
            throw ApiException.invalid("tool_choice", "'tool_choice' must be none, auto, required or " + shapes);
        }
        return Optional.of(offered(choice, toolsJson));
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
