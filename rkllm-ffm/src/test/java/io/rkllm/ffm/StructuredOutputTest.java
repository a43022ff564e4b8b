package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The simulated runtime's [[json]] directive through the real binding: what a structured-output pipeline
 * will receive for each outcome (docs/simulated-runtime.md, "Structured output").
 */
class StructuredOutputTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
            + "\"days\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":7}},\"required\":[\"city\",\"days\"]}";

    @TempDir
    Path dir;

    private static String answer(Model model, String prompt) {
        Sim.Collector out = new Sim.Collector();
        assertThat(model.run(RunInput.user(prompt, false), out, new RunControl()))
                .isInstanceOf(TokenEvent.Finished.class);
        return out.text();
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void eachOutcomeGivesWhatItSays(Abi abi) throws JsonProcessingException {
        RkllmRuntime runtime = Sim.runtime(abi);
        try (Model model = runtime.load(Sim.params(runtime, Sim.model(dir, "m", Map.of()), 2048))) {
            String ask = "Plan a trip. Reply with JSON matching this schema: " + SCHEMA + " ";
            JsonNode valid = JSON.readTree(answer(model, ask + "[[json]]"));
            assertThat(valid.get("city").isTextual()).isTrue();
            assertThat(valid.get("days").asInt()).isBetween(1, 7);
            JsonNode invalid = JSON.readTree(answer(model, ask + "[[json:invalid]]"));
            assertThat(invalid.has("city")).isFalse(); // valid JSON, but a required property is missing
            assertThatThrownBy(() -> JSON.readTree(answer(model, ask + "[[json:unclosed]]")))
                    .isInstanceOf(JsonProcessingException.class);
            assertThat(answer(model, ask + "[[json:trailing_comma]]")).endsWith(",}");
            assertThat(answer(model, ask + "[[json:fenced]]")).startsWith("```json\n{").endsWith("}\n```");
            assertThat(answer(model, ask + "[[json:prose]]")).doesNotContain("{");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void theSchemaAsTheOnlyToolIsFilledAsACall(Abi abi) throws JsonProcessingException {
        RkllmRuntime runtime = Sim.runtime(abi);
        try (Model model = runtime.load(Sim.params(runtime, Sim.model(dir, "m", Map.of()), 2048))) {
            model.setFunctionTools("", "[{\"type\":\"function\",\"function\":{\"name\":\"plan\",\"parameters\":"
                    + SCHEMA + "}}]", "tool_response");
            String text = answer(model, "Plan a trip. [[json]]");
            assertThat(text).startsWith("<tool_call>\n").endsWith("\n</tool_call>");
            String inside = text.substring("<tool_call>\n".length(), text.length() - "\n</tool_call>".length());
            JsonNode call = JSON.readTree(inside);
            assertThat(call.get("name").asText()).isEqualTo("plan");
            assertThat(call.get("arguments").get("days").asInt()).isBetween(1, 7);
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void askedForJsonAsServersAskTheModelAnswersItWithoutADirective(Abi abi) throws JsonProcessingException {
        RkllmRuntime runtime = Sim.runtime(abi);
        try (Model model = runtime.load(Sim.params(runtime, Sim.model(dir, "m", Map.of()), 2048))) {
            JsonNode withSchema = JSON.readTree(answer(model, "Plan a trip.\n\nAnswer with a single JSON value that"
                    + " conforms to this JSON Schema, and nothing else:\n" + SCHEMA));
            assertThat(withSchema.get("days").asInt()).isBetween(1, 7);
            assertThat(JSON.readTree(answer(model, "Tell me.\n\nAnswer with a single JSON object and nothing else."))
                    .isObject()).isTrue();
            assertThat(answer(model, "Describe JSON in one sentence.")).doesNotContain("{");
        }
    }
}
