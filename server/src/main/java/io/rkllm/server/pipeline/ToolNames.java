package io.rkllm.server.pipeline;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;

/** The function names of an OpenAI {@code tools} array. */
final class ToolNames {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolNames() {
    }

    static List<String> of(String toolsJson) {
        List<String> names = new ArrayList<>();
        try {
            for (JsonNode tool : JSON.readTree(toolsJson)) {
                names.add(tool.path("function").path("name").asText());
            }
        } catch (JacksonException e) {
            throw new IllegalArgumentException("tools are not JSON", e);
        }
        return names;
    }
}
