package io.rkllm.server.pipeline.request;

import java.util.Objects;

/** Whether and which tool the answer must call (OpenAI's tool_choice, Anthropic's, the Responses API's). */
public sealed interface ToolChoice {
    ToolChoice AUTO = new Auto();
    ToolChoice REQUIRED = new Required();

    /** The model decides. */
    record Auto() implements ToolChoice {
    }

    /** The answer must call at least one of the tools. */
    record Required() implements ToolChoice {
    }

    /** The answer must call this function. */
    record Function(String name) implements ToolChoice {
        public Function {
            Objects.requireNonNull(name, "name");
        }
    }
}
