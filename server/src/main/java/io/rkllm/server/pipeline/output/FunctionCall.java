package io.rkllm.server.pipeline.output;

import java.util.Objects;
import java.util.Optional;

/**
 * One function call read from a model's output.
 *
 * @param name the function's name
 * @param argumentsJson its arguments as JSON text (compact when the model wrote valid JSON)
 * @param id the id the model wrote for it (Kimi's {@code functions.NAME:0}, Command R's, Mistral Nemo's), which the
 *           client then gets, as from llama-server; else the server makes one
 */
public record FunctionCall(String name, String argumentsJson, Optional<String> id) {
    public FunctionCall {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(argumentsJson, "argumentsJson");
        Objects.requireNonNull(id, "id");
    }

    /** A call without an id of its own. */
    public FunctionCall(String name, String argumentsJson) {
        this(name, argumentsJson, Optional.empty());
    }
}
