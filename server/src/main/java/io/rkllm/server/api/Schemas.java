package io.rkllm.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.server.pipeline.request.OutputFormat;

/** A JSON Schema a client sends for structured output, in any API's wrapper. */
public final class Schemas {
    private Schemas() {
    }

    /**
     * OpenAI's {@code json_schema} object ({@code name}, {@code schema}, {@code strict}, {@code description}), or
     * the Responses API's {@code text.format} which has the same fields.
     */
    public static OutputFormat format(JsonNode spec, String param) {
        if (!spec.isObject()) {
            throw ApiException.invalid(param, "'" + param + "' must be an object with 'name' and 'schema'");
        }
        JsonNode schema = spec.path("schema");
        if (!schema.isObject()) {
            throw ApiException.invalid(param, "'" + param + "' needs 'schema': a JSON Schema object");
        }
        return new OutputFormat.JsonSchema(spec.path("name").asText(""), schema.toString());
    }

    /** A bare schema object (Ollama's {@code format}). */
    public static OutputFormat bare(JsonNode schema, String param) {
        if (!schema.isObject()) {
            throw ApiException.invalid(param, "'" + param + "' must be \"json\" or a JSON Schema object");
        }
        return new OutputFormat.JsonSchema("", schema.toString());
    }
}
