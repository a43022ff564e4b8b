package io.rkllm.server.pipeline.output;

import java.util.Objects;

/**
 * One function call read from a model's output.
 *
 * @param name the function's name
 * @param argumentsJson its arguments as JSON text (compact when the model wrote valid JSON)
 */
public record FunctionCall(String name, String argumentsJson) {
    public FunctionCall {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(argumentsJson, "argumentsJson");
    }
}
