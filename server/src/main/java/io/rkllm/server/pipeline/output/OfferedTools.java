package io.rkllm.server.pipeline.output;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The tools a request offered, as the output's readers need them: which names a call may have (a call of any other
 * name is not a call, as llama-server's parsers accept only the offered names), and the declared JSON type of each
 * parameter (formats that write every argument as text, Qwen3-Coder's XML or GLM's, are typed by it).
 */
public final class OfferedTools {
    /** No list to check against: any name is a call, no parameter has a declared type. */
    public static final OfferedTools ANY = new OfferedTools(Map.of(), true);

    private final Map<String, JsonNode> parameters;
    private final boolean any;

    private OfferedTools(Map<String, JsonNode> parameters, boolean any) {
        this.parameters = parameters;
        this.any = any;
    }

    /** The tools of an OpenAI {@code tools} array given as JSON text; {@link #ANY} when it cannot be read. */
    public static OfferedTools of(String toolsJson) {
        JsonNode root = CallJson.readTree(toolsJson);
        if (root == null || !root.isArray()) {
            return ANY;
        }
        Map<String, JsonNode> parameters = new LinkedHashMap<>();
        for (JsonNode tool : root) {
            JsonNode fn = tool.has("function") ? tool.get("function") : tool;
            String name = fn.path("name").asText("");
            if (!name.isEmpty()) {
                parameters.put(name, fn.path("parameters"));
            }
        }
        return new OfferedTools(Map.copyOf(parameters), false);
    }

    /** The offered function a model's name for it stands for: the name itself, else empty. */
    public Optional<String> resolve(String name) {
        String stripped = name.strip();
        if (any) {
            return stripped.isEmpty() ? Optional.empty() : Optional.of(stripped);
        }
        return parameters.containsKey(stripped) ? Optional.of(stripped) : Optional.empty();
    }

    /** The offered names (empty for {@link #ANY}). */
    public Set<String> names() {
        return parameters.keySet();
    }

    /**
     * The JSON Schema type declared for a parameter ({@code string}, {@code integer}, {@code object}...), the first
     * of a list of types; empty when the tool or the parameter declares none.
     */
    public Optional<String> parameterType(String tool, String parameter) {
        JsonNode type = parameters.getOrDefault(tool, CallJson.MISSING).path("properties").path(parameter)
                .path("type");
        if (type.isTextual()) {
            return Optional.of(type.asText());
        }
        if (type.isArray()) {
            for (JsonNode t : type) {
                if (t.isTextual() && !t.asText().equals("null")) {
                    return Optional.of(t.asText());
                }
            }
        }
        return Optional.empty();
    }
}
