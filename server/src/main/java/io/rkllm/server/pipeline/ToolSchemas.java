package io.rkllm.server.pipeline;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The functions of an OpenAI {@code tools} array: their names, in order, and the check of their parameters. */
final class ToolSchemas {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, Optional<SchemaCheck>> parameters;

    private ToolSchemas(Map<String, Optional<SchemaCheck>> parameters) {
        this.parameters = parameters;
    }

    /** A tool whose parameters are not a usable JSON Schema gets no argument check (the runtime took it as it is). */
    static ToolSchemas of(String toolsJson) {
        Map<String, Optional<SchemaCheck>> parameters = new LinkedHashMap<>();
        try {
            for (JsonNode tool : JSON.readTree(toolsJson)) {
                JsonNode fn = tool.path("function");
                JsonNode schema = fn.path("parameters");
                parameters.put(fn.path("name").asText(), schema.isObject() ? SchemaCheck.tryOf(schema.toString())
                        : Optional.empty());
            }
        } catch (JacksonException e) {
            throw new IllegalArgumentException("tools are not JSON", e);
        }
        return new ToolSchemas(parameters);
    }

    List<String> names() {
        return List.copyOf(parameters.keySet());
    }

    /** Why {@code argumentsJson} is not a valid call of {@code name}, if it is not. */
    Optional<String> problem(String name, String argumentsJson) {
        Optional<SchemaCheck> check = parameters.getOrDefault(name, Optional.empty());
        if (check.isEmpty()) {
            return Optional.empty();
        }
        JsonNode arguments;
        try {
            arguments = JSON.readTree(argumentsJson);
        } catch (JacksonException e) {
            return Optional.of("its arguments for " + name + " were not JSON");
        }
        return check.get().violations(arguments).map(v -> "its arguments for " + name
                + " did not conform to the function's parameters schema (" + v + ")");
    }
}
