package io.rkllm.server.pipeline.request;

import java.util.Objects;

/** What the answer's content must be, when a client asks for structured output. */
public sealed interface OutputFormat {

    /** Any single JSON object (OpenAI's json_object, Ollama's format "json"). */
    record JsonObject() implements OutputFormat {
    }

    /**
     * A JSON value valid against a JSON Schema (OpenAI's json_schema, Ollama's format object, the Responses
     * API's text.format).
     *
     * @param name the schema's name, when the client gave one
     * @param schemaJson the schema, as JSON text
     */
    record JsonSchema(String name, String schemaJson) implements OutputFormat {
        public JsonSchema {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(schemaJson, "schemaJson");
        }
    }
}
