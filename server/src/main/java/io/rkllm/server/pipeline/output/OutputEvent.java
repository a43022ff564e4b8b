package io.rkllm.server.pipeline.output;

import java.util.Objects;

/** A piece of the model's answer, classified by {@link OutputScanner}. */
public sealed interface OutputEvent {

    /**
     * Answer text for {@code delta.content}; never empty from the scanner (the route makes an empty one only to carry
     * the log probabilities of tokens whose text came to nothing).
     */
    record Content(String text) implements OutputEvent {
        public Content {
            Objects.requireNonNull(text, "text");
        }
    }

    /** Text from inside a think block, for {@code delta.reasoning_content}; never empty. */
    record Reasoning(String text) implements OutputEvent {
        public Reasoning {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * More of a function call whose block has not closed yet, as it becomes certain: the first of a call names it
     * (its arguments may be empty), the later ones add to its arguments. The call's {@link ToolCall} still comes
     * when its block closes, with the same index, id and name, its arguments starting with every piece sent here
     * (a client that streams sends what is left; one that does not takes the whole call).
     *
     * @param index     the call's position among this answer's tool calls
     * @param id        its id, as its {@link ToolCall} has it
     * @param name      the function's name
     * @param arguments the next piece of its arguments' JSON text
     */
    record CallDelta(int index, String id, String name, String arguments) implements OutputEvent {
        public CallDelta {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(arguments, "arguments");
        }
    }

    /**
     * One complete function call parsed from a {@code <tool_call>} block.
     *
     * @param index         position among this answer's tool calls: 0, 1, 2...
     * @param id            generated call id, {@code call_} and 24 alphanumerics
     * @param name          function name
     * @param argumentsJson the arguments as a JSON string (compact when the model gave valid JSON)
     */
    record ToolCall(int index, String id, String name, String argumentsJson) implements OutputEvent {
        public ToolCall {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(argumentsJson, "argumentsJson");
        }
    }
}
