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

    /** A person as zod describes it: bounds, an enum, a nested object, a nullable, a tuple. */
    private static final String PERSON = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
            + "\"age\":{\"type\":\"integer\",\"minimum\":18,\"maximum\":120},\"height\":{\"type\":\"number\","
            + "\"exclusiveMinimum\":0},\"kind\":{\"type\":\"string\",\"enum\":[\"cat\",\"dog\"]},\"tags\":{\"type\":"
            + "\"array\",\"items\":{\"type\":\"string\"},\"minItems\":2},\"address\":{\"type\":\"object\","
            + "\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]},\"active\":{\"type\":"
            + "\"boolean\"},\"nickname\":{\"type\":[\"string\",\"null\"]},\"position\":{\"type\":\"array\","
            + "\"prefixItems\":[{\"type\":\"number\"},{\"type\":\"integer\"}],\"items\":false}},\"required\":"
            + "[\"name\",\"age\",\"height\",\"kind\",\"tags\",\"address\",\"active\",\"nickname\",\"position\"]}";
    /** What the server adds to the newest message for {@code response_format: json_object}. */
    private static final String JSON_OBJECT_GUIDANCE = "\n\nAnswer with a single JSON object and nothing else: no prose,"
            + " no code fence.";

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

    private static void assertPerson(JsonNode person) {
        assertThat(person.get("name").isTextual()).isTrue();
        assertThat(person.get("age").isInt()).isTrue();
        assertThat(person.get("age").asInt()).isBetween(18, 120);
        assertThat(person.get("height").isNumber()).isTrue();
        assertThat(person.get("height").asDouble()).isPositive();
        assertThat(person.get("kind").asText()).isIn("cat", "dog");
        assertThat(person.get("tags").size()).isGreaterThanOrEqualTo(2);
        assertThat(person.get("address").get("city").isTextual()).isTrue();
        assertThat(person.get("active").isBoolean()).isTrue();
        assertThat(person.has("nickname")).isTrue();
        assertThat(person.get("position").size()).isEqualTo(2);
        assertThat(person.get("position").get(0).isNumber()).isTrue();
        assertThat(person.get("position").get(1).isInt()).isTrue();
    }

    /**
     * Vercel AI SDK 4's generateObject in "json" mode appends the schema to the system message, between its own words
     * ("JSON schema:" and "You MUST answer with a JSON object that matches the JSON schema above."), and asks for
     * json_object, for which the server adds its sentence to the user message.
     */
    @ParameterizedTest
    @EnumSource(Abi.class)
    void theSchemaInTheSystemPartAsTheAiSdkPutsItIsFilled(Abi abi) throws JsonProcessingException {
        RkllmRuntime runtime = Sim.runtime(abi);
        try (Model model = runtime.load(Sim.params(runtime, Sim.model(dir, "m", Map.of()), 2048))) {
            model.setChatTemplate("<|im_start|>system\nYou extract people.\n\nJSON schema:\n" + PERSON + "\nYou MUST"
                    + " answer with a JSON object that matches the JSON schema above.<|im_end|>\n", "<|im_start|>user\n",
                    "<|im_end|>\n<|im_start|>assistant\n");
            assertPerson(JSON.readTree(answer(model, "Alice lives in Lyon." + JSON_OBJECT_GUIDANCE)));
            assertThat(JSON.readTree(answer(model, "Alice lives in Lyon. [[json:invalid]]")).has("name"))
                    .as("the directive still decides").isFalse();
        }
    }

    /**
     * LangChain's StructuredOutputParser.getFormatInstructions(), which users put into the prompt of a
     * withStructuredOutput(schema, {method: "jsonMode"}) chain: an example schema first, then the real one in a code
     * fence. The real one is filled, with or without the server's sentence.
     */
    @ParameterizedTest
    @EnumSource(Abi.class)
    void langChainsFormatInstructionsAreFilledWithTheRealSchemaNotTheExample(Abi abi) throws JsonProcessingException {
        RkllmRuntime runtime = Sim.runtime(abi);
        try (Model model = runtime.load(Sim.params(runtime, Sim.model(dir, "m", Map.of()), 4096))) {
            String instructions = "You must format your output as a JSON value that adheres to a given \"JSON Schema\""
                    + " instance.\n\n\"JSON Schema\" is a declarative language that allows you to annotate and validate"
                    + " JSON documents.\n\nFor example, the example \"JSON Schema\" instance {{\"properties\": {{\"foo\":"
                    + " {{\"description\": \"a list of test words\", \"type\": \"array\", \"items\": {{\"type\":"
                    + " \"string\"}}}}}}, \"required\": [\"foo\"]}}\nwould match an object with one required property,"
                    + " \"foo\". [...]\n\nHere is the JSON Schema instance your output must adhere to. Include the enclosing"
                    + " markdown codeblock:\n```json\n" + PERSON + "\n```\n";
            assertPerson(JSON.readTree(answer(model, instructions + "\nAlice lives in Lyon.")));
            assertPerson(JSON.readTree(answer(model, instructions + "\nAlice lives in Lyon." + JSON_OBJECT_GUIDANCE)));
        }
    }
}
