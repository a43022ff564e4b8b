package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Structured output that client libraries ask for with {@code response_format: json_object} and the JSON Schema
 * written into the prompt: the Vercel AI SDK 4's generateObject in "json" mode and LangChain's jsonMode with its
 * parser's format instructions. Their request bodies were recorded as the clients sent them
 * ({@code src/test/resources/structured-output}). The server only knows that an object is wanted; the simulated
 * model, like an instruction-following one, finds the schema in the prompt and fills it, so these clients work on
 * {@code --simulate}. The answer is checked here as the client checks it: against the schema in the prompt, with
 * the validator the server uses for {@code json_schema} (networknt).
 */
class SchemaInPromptTest {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    @TempDir
    Path dir;

    /** Each recorded request with the client's own words before and after the schema in its system message. */
    static Stream<Arguments> recorded() {
        return Stream.of(
                Arguments.of("ai-sdk-4.3.19-generate-object-json-mode.json",
                        "You extract people from the text.\n\nJSON schema:\n",
                        "\nYou MUST answer with a JSON object that matches the JSON schema above."),
                Arguments.of("langchain-openai-1.6.0-json-mode-format-instructions.json",
                        "Here is the JSON Schema instance your output must adhere to. Include the enclosing markdown"
                                + " codeblock:\n```json\n",
                        "\n```\n"));
    }

    private static ObjectNode fixture(String name) throws IOException {
        try (InputStream in = SchemaInPromptTest.class.getResourceAsStream("/structured-output/" + name)) {
            assertThat(in).as(name).isNotNull();
            ObjectNode body = (ObjectNode) TestServer.JSON.readTree(new String(in.readAllBytes(),
                    StandardCharsets.UTF_8));
            body.put("model", "m");
            return body;
        }
    }

    /** The schema between the client's words, which must be there as recorded. */
    private static String schemaIn(String system, String before, String after) {
        assertThat(system).contains(before).endsWith(after);
        int start = system.indexOf(before) + before.length();
        return system.substring(start, system.length() - after.length());
    }

    private static List<Error> violations(String schemaJson, JsonNode value) throws IOException {
        return SCHEMAS.getSchema(TestServer.JSON.readTree(schemaJson)).validate(value);
    }

    private static TestServer server(Path dir) {
        return TestServer.in(dir).model("m", Map.of()).start();
    }

    @ParameterizedTest
    @MethodSource("recorded")
    void theAnswerIsValidAgainstTheSchemaThePromptCarries(String file, String before, String after) throws Exception {
        ObjectNode body = fixture(file);
        assertThat(body.at("/response_format/type").asText()).isEqualTo("json_object");
        String schema = schemaIn(body.at("/messages/0/content").asText(), before, after);
        try (TestServer server = server(dir)) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", body.toString());
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            JsonNode answer = TestServer.JSON.readTree(reply.json().at("/choices/0/message/content").asText());
            assertThat(violations(schema, answer)).as(answer.toString()).isEmpty();
            assertThat(answer.at("/position").size()).as("the tuple, one value a place").isEqualTo(2);
            assertThat(reply.header("X-RKLLM-Output-Check")).isEqualTo("valid");
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("prefilled_text").asText()).as("the model was shown the schema").contains(schema);
            assertThat(server.runs("m")).as("right the first time").hasSize(1);
        }
    }

    /** What the current AI SDK and LangChain's plain jsonMode send: the same request without the schema. */
    @ParameterizedTest
    @MethodSource("recorded")
    void withoutTheSchemaInThePromptThereIsNothingToFill(String file, String before, String after) throws Exception {
        ObjectNode body = fixture(file);
        String schema = schemaIn(body.at("/messages/0/content").asText(), before, after);
        ((ObjectNode) body.at("/messages/0")).put("content", "You extract people from the text.");
        try (TestServer server = server(dir)) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", body.toString());
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            JsonNode answer = TestServer.JSON.readTree(reply.json().at("/choices/0/message/content").asText());
            assertThat(answer.isObject()).as("json_object's promise is kept").isTrue();
            assertThat(violations(schema, answer)).as("a schema the model was never shown").isNotEmpty();
        }
    }
}
