package io.rkllm.server.template;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A tool call's arguments as a chat template takes them. Hugging Face's templates are written for arguments as an
 * object (Qwen's {@code arguments | tojson}, Seed-OSS's {@code arguments | items}), DeepSeek's concatenate them
 * as text ({@code '...' + arguments}): the object, in the model's key order, whose text is the JSON json.dumps
 * writes for it serves both. Arguments that are not a JSON object stay the text the model wrote. They are read by
 * the template engine's own JSON reader, as the tools are (no JSON library in a backend).
 */
final class ToolArguments extends LinkedHashMap<String, Object> {
    private ToolArguments(Map<String, Object> values) {
        super(values);
    }

    /**
     * The arguments as an object, or the model's text as it is when it is not a JSON object.
     *
     * @param reader reads JSON text into maps, lists and values; throws on text that is not JSON
     */
    static Object of(String json, Function<String, Object> reader) {
        try {
            if (reader.apply(json) instanceof Map<?, ?> map) {
                @SuppressWarnings("unchecked")
                Map<String, Object> object = (Map<String, Object>) map;
                return new ToolArguments(object);
            }
        } catch (RuntimeException e) {
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
