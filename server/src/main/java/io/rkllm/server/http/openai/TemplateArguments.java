package io.rkllm.server.http.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code chat_template_kwargs} as plain Java values (strings, numbers, booleans, lists, maps), as a template reads them. */
final class TemplateArguments {
    private static final ObjectMapper JSON = new ObjectMapper();

    private TemplateArguments() {
    }

    /** The object's keys and values; a JSON null is left out (the template sees the key undefined). */
    static Map<String, Object> of(JsonNode kwargs) {
        Map<String, Object> values = new LinkedHashMap<>();
        kwargs.properties().forEach(e -> {
            if (!e.getValue().isNull()) {
                values.put(e.getKey(), JSON.convertValue(e.getValue(), Object.class));
            }
        });
        return values;
    }
}
