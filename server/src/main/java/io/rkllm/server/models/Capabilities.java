package io.rkllm.server.models;

/**
 * What a model can do beyond plain chat.
 *
 * @param thinking the model can emit {@code <think>...</think>} reasoning (hybrid or thinking-only models)
 * @param tools    the model's chat template and training support Hermes-style tool calls ({@code <tool_call>})
 */
public record Capabilities(boolean thinking, boolean tools) {

    /** Plain chat: no thinking, no tools. */
    public static Capabilities none() {
        return new Capabilities(false, false);
    }

    public Capabilities withThinking(boolean value) {
        return new Capabilities(value, tools);
    }

    public Capabilities withTools(boolean value) {
        return new Capabilities(thinking, value);
    }
}
