package io.rkllm.server.engine.contract;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the answer's text must be, for a backend that can constrain its sampling (llama.cpp, by a grammar): the
 * answer is then valid by construction. A backend that cannot (RKLLM) ignores it; the pipeline checks every answer
 * against the request's contract either way, so a constraint only ever saves a retry.
 */
public sealed interface AnswerShape {

    /**
     * Where the constraint starts: at the answer's first token, or after this text (the reasoning's closing tag, when
     * the request lets the model think first).
     */
    Optional<String> after();

    /** A single JSON object. */
    record JsonObject(Optional<String> after) implements AnswerShape {
        public JsonObject {
            Objects.requireNonNull(after, "after");
        }
    }

    /**
     * A JSON value valid against a JSON Schema, given as plain Java values (maps in the schema's order, lists,
     * strings, numbers, booleans and nulls: no JSON library's types reach the engine).
     */
    record JsonSchema(Map<String, Object> schema, Optional<String> after) implements AnswerShape {
        public JsonSchema {
            Objects.requireNonNull(schema, "schema");
            Objects.requireNonNull(after, "after");
        }
    }
}
