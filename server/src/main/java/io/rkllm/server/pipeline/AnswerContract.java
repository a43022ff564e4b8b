package io.rkllm.server.pipeline;

import io.rkllm.server.pipeline.output.JsonInText;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.OutputFormat;
import io.rkllm.server.pipeline.request.ToolChoice;
import java.util.List;
import java.util.Optional;

/**
 * What a client requires of the answer beyond free text: JSON (valid against a schema when one is given), or a
 * call of a tool. The RKLLM runtime cannot constrain sampling (llama.cpp can: {@code AnswerShape}), so the server
 * guides the model (a sentence added to the newest message), checks the answer, mends what is mechanically
 * mendable, and asks once more when it fails.
 */
sealed interface AnswerContract {

    /** The sentence added to the newest message. */
    String guidance();

    /** The message that asks again, after {@code problem}. */
    String correction(String problem);

    /** The answer's JSON. */
    record Json(Optional<SchemaCheck> schema, String schemaJson) implements AnswerContract {
        @Override
        public String guidance() {
            return schema.isEmpty()
                    ? "Answer with a single JSON object and nothing else: no prose, no code fence."
                    : "Answer with a single JSON value that conforms to this JSON Schema, and nothing else (no prose,"
                            + " no code fence):\n" + schemaJson;
        }

        @Override
        public String correction(String problem) {
            return "Your reply was not usable: " + problem + ". Reply again with only the JSON"
                    + (schema.isPresent() ? " that conforms to the schema" : " object") + ", nothing else.";
        }

        /** The JSON to answer with, or why there is none. */
        Verdict check(String content) {
            // a schema of a number, a string, an enum of them...: the whole answer is the value (a string that holds
            // brackets is not the array inside it)
            Optional<JsonInText.Found> found = schema.isPresent() ? JsonInText.scalar(content) : Optional.empty();
            if (found.isEmpty()) {
                found = JsonInText.find(content);
            }
            if (found.isEmpty()) {
                return Verdict.failed(content.isBlank() ? "it was empty" : "it held no JSON");
            }
            JsonInText.Found json = found.get();
            if (schema.isEmpty() && !json.value().isObject()) {
                return Verdict.failed("it was not a JSON object");
            }
            Optional<String> violations = schema.flatMap(s -> s.violations(json.value()));
            if (violations.isPresent()) {
                return Verdict.failed("it did not conform to the schema (" + violations.get() + ")");
            }
            return new Verdict(true, json.repaired(), json.json(), "");
        }
    }

    /** A call of one of the tools, or of the named one, with arguments valid against its parameters schema. */
    record ToolCall(Optional<String> name, ToolSchemas tools) implements AnswerContract {
        @Override
        public String guidance() {
            return name.map(n -> "Answer by calling the function " + n + " now.")
                    .orElse("Answer by calling one of the functions (" + String.join(", ", tools.names()) + ") now.");
        }

        @Override
        public String correction(String problem) {
            return "Your reply was not usable: " + problem + ". " + guidance();
        }

        Verdict check(List<OutputEvent.ToolCall> calls) {
            if (calls.isEmpty()) {
                return Verdict.failed("it called no function");
            }
            if (name.isPresent() && calls.stream().noneMatch(c -> c.name().equals(name.get()))) {
                return Verdict.failed("it did not call " + name.get());
            }
            for (OutputEvent.ToolCall call : calls) {
                Optional<String> problem = tools.problem(call.name(), call.argumentsJson());
                if (problem.isPresent()) {
                    return Verdict.failed(problem.get());
                }
            }
            return new Verdict(true, false, "", "");
        }
    }

    /**
     * Whether an answer met the contract.
     *
     * @param repaired the JSON parsed only after mending
     * @param json the JSON to answer with (JSON contracts)
     * @param problem why it failed, for the correction and the error
     */
    record Verdict(boolean ok, boolean repaired, String json, String problem) {
        static Verdict failed(String problem) {
            return new Verdict(false, false, "", problem);
        }
    }

    /** The contract a request carries, if any; the schema is compiled here (a bad one is the client's 400). */
    static Optional<AnswerContract> of(ChatRequest request) {
        if (request.format().isPresent()) {
            return Optional.of(switch (request.format().get()) {
                case OutputFormat.JsonObject j -> new Json(Optional.empty(), "");
                case OutputFormat.JsonSchema s -> new Json(Optional.of(SchemaCheck.of(s.schemaJson(),
                        "response_format")), s.schemaJson());
            });
        }
        if (request.toolsJson().isEmpty()) {
            return Optional.empty();
        }
        return switch (request.toolChoice()) {
            case ToolChoice.Auto a -> Optional.empty();
            case ToolChoice.Required r -> Optional.of(new ToolCall(Optional.empty(),
                    ToolSchemas.of(request.toolsJson().get())));
            case ToolChoice.Function f -> Optional.of(new ToolCall(Optional.of(f.name()),
                    ToolSchemas.of(request.toolsJson().get())));
        };
    }
}
