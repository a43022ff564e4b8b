package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.Syntax;

/**
 * Hermes' and Qwen's {@code <tool_call>{"name": ..., "arguments": ...}</tool_call>} and {@code <think>}: Qwen2.5,
 * Qwen3, QwQ, Hermes 2 Pro and 3, SmolLM3, Granite 4, and what a model the server knows nothing better of writes.
 */
final class Hermes implements Dialect {
    @Override
    public String name() {
        return "hermes";
    }

    @Override
    public Syntax syntax() {
        return Syntax.HERMES;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<tool_call>");
    }
}
