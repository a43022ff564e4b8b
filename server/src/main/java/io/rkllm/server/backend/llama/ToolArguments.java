package io.rkllm.server.backend.llama;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A tool call's arguments as a chat template takes them. Hugging Face's templates are written for arguments as an
 * object (Qwen's {@code arguments | tojson}, Seed-OSS's {@code arguments | items}), DeepSeek's concatenate them
 * as text ({@code '...' + arguments}): the object, in the model's key order, whose text is the JSON json.dumps
 * writes for it serves both. Arguments that are not a JSON object stay the text the model wrote.
 */
final class ToolArguments extends LinkedHashMap<String, Object> {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolArguments(Map<String, Object> values) {
        super(values);
    }

    /** The arguments as an object, or the model's text as it is when it is not a JSON object. */
    static Object of(String json) {
        try {
            Object value = JSON.readValue(json, Object.class);
            if (value instanceof Map<?, ?> map) {
                @SuppressWarnings("unchecked")
                Map<String, Object> object = (Map<String, Object>) map;
                return new ToolArguments(object);
            }
        } catch (JsonProcessingException e) {
            // not JSON: written as the model wrote it
        }
        return new PyJson.Raw(json);
    }

    /** What a template that concatenates or prints the arguments writes: Python's JSON text of them. */
    @Override
    public String toString() {
        return PyJson.write(this);
    }
}
