package io.rkllm.server.it;

import static io.rkllm.server.it.ChatCompletionsTest.chat;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structured output and forced tool calls: what reaches the runtime (the guidance, the retry turn), what the client
 * gets (valid JSON, mended JSON, a clear error), in every API that takes a format. The simulated runtime's
 * {@code [[json:OUTCOME,...]]} directive makes the model answer valid, broken, invalid or prose, attempt by attempt.
 */
class StructuredOutputTest {
    static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
            + "\"population\":{\"type\":\"integer\"}},\"required\":[\"city\",\"population\"],"
            + "\"additionalProperties\":false}";
    static final String JSON_SCHEMA = "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"city\","
            + "\"strict\":true,\"schema\":" + SCHEMA + "}}";
    static final String TOOLS = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
            + "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}},{\"type\":\"function\","
            + "\"function\":{\"name\":\"get_time\",\"parameters\":{\"type\":\"object\",\"properties\":{\"zone\":"
            + "{\"type\":\"string\"}}}}}]";

    @TempDir
    Path dir;

    private TestServer server(Map<String, String> keys) {
        return TestServer.in(dir).model("m", keys).sidecar("m", "family: qwen2.5\ncapabilities: {tools: true}\n")
                .start();
    }

    private static JsonNode content(TestServer.Reply reply) throws Exception {
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return TestServer.JSON.readTree(reply.json().at("/choices/0/message/content").asText());
    }

    @Test
    void aValidAnswerComesBackAsTheJsonWithTheSchemaInThePrompt() throws Exception {
        try (TestServer server = server(Map.of())) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("[[json]] Describe Paris.",
                    JSON_SCHEMA));
            JsonNode json = content(reply);
            assertThat(json.get("city").asText()).isEqualTo("sim");
            assertThat(json.get("population").isInt()).isTrue();
            assertThat(reply.header("X-RKLLM-Output-Check")).isEqualTo("valid");
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("prompt").asText()).startsWith("[[json]] Describe Paris.\n\n")
                    .contains("conforms to this JSON Schema").contains(SCHEMA);
            assertThat(server.runs("m")).hasSize(1);
        }
    }

    @Test
    void mechanicallyBrokenJsonIsMendedAndSaidSo() throws Exception {
        try (TestServer server = server(Map.of())) {
            for (String outcome : List.of("trailing_comma", "unclosed")) {
                TestServer.Reply reply = server.postForReply("/v1/chat/completions",
                        chat("[[json:" + outcome + "]] Describe Paris.", JSON_SCHEMA));
                assertThat(content(reply).get("city").asText()).as(outcome).isEqualTo("sim");
                assertThat(reply.header("X-RKLLM-Output-Check")).as(outcome).isEqualTo("repaired");
            }
            for (String outcome : List.of("fenced", "wrapped")) {
                TestServer.Reply reply = server.postForReply("/v1/chat/completions",
                        chat("[[json:" + outcome + "]] Describe Paris.", JSON_SCHEMA));
                assertThat(content(reply).get("city").asText()).as(outcome).isEqualTo("sim");
                assertThat(reply.header("X-RKLLM-Output-Check")).as("taken out, not mended").isEqualTo("valid");
            }
        }
    }

    @Test
    void anAnswerTheSchemaRejectsIsAskedForOnceMoreOnTopOfTheCache() throws Exception {
        try (TestServer server = server(Map.of())) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions",
                    chat("[[json:invalid,valid]] Describe Paris.", JSON_SCHEMA));
            assertThat(content(reply).get("population").isInt()).isTrue();
            assertThat(reply.header("X-RKLLM-Output-Check")).isEqualTo("retried");
            List<JsonNode> runs = server.runs("m");
            assertThat(runs).hasSize(2);
            JsonNode retry = runs.get(1);
            assertThat(retry.get("prompt").asText()).startsWith("Your reply was not usable: it did not conform to"
                    + " the schema");
            assertThat(retry.get("cache_before").asInt()).as("only the correction is prefilled")
                    .isEqualTo(runs.get(0).get("cache_after").asInt());
            JsonNode usage = reply.json().get("usage");
            assertThat(usage.get("completion_tokens").asInt()).isEqualTo(runs.get(0).get("generate_tokens").asInt()
                    + retry.get("generate_tokens").asInt());
            assertThat(usage.get("prompt_tokens").asInt()).isEqualTo(runs.get(0).get("prefill_tokens").asInt()
                    + retry.get("prefill_tokens").asInt());
        }
    }

    @Test
    void twoFailuresAreAClearErrorNotAnInvalidAnswer() throws Exception {
        try (TestServer server = server(Map.of())) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions",
                    chat("[[json:prose,invalid]] Describe Paris.", JSON_SCHEMA));
            ChatCompletionsTest.assertError(reply, 422, "invalid_output");
            assertThat(reply.json().at("/error/message").asText()).contains("did not conform to the schema")
                    .contains("also when asked a second time");
            TestServer.Reply next = server.postForReply("/v1/chat/completions", chat("[[say:still here]]", ""));
            assertThat(next.json().at("/choices/0/message/content").asText()).isEqualTo("still here");
        }
    }

    @Test
    void aStreamShowsReasoningLiveAndTheCheckedJsonAtTheEnd() throws Exception {
        try (TestServer server = server(Map.of("thinking", "1"))) {
            SseEvents events = SseEvents.parse(server.postForReply("/v1/chat/completions",
                    chat("[[json:trailing_comma]] Describe Paris.", JSON_SCHEMA
                            + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}")).body());
            List<JsonNode> chunks = events.assertValidChatStream(true);
            List<JsonNode> contents = chunks.stream().filter(c -> !c.at("/choices/0/delta/content").asText("")
                    .isEmpty()).toList();
            assertThat(contents).as("the content in one piece, once checked").hasSize(1);
            assertThat(TestServer.JSON.readTree(contents.getFirst().at("/choices/0/delta/content").asText())
                    .get("city").asText()).isEqualTo("sim");
            assertThat(chunks.stream().anyMatch(c -> c.at("/choices/0/delta/reasoning_content").isTextual())).isTrue();
            assertThat(events.comments()).containsExactly("X-RKLLM-Output-Check: repaired");
            JsonNode usage = chunks.getLast().get("usage");
            assertThat(usage.at("/completion_tokens_details/reasoning_tokens").asInt()).isPositive()
                    .isLessThan(usage.get("completion_tokens").asInt());
        }
    }

    @Test
    void jsonObjectModeWantsAnObject() throws Exception {
        try (TestServer server = server(Map.of())) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("[[json:wrapped]] Tell me.",
                    "\"response_format\":{\"type\":\"json_object\"}"));
            assertThat(content(reply).get("answer").asText()).isEqualTo("sim");
            assertThat(server.runs("m").getLast().get("prompt").asText()).endsWith("Answer with a single JSON object"
                    + " and nothing else: no prose, no code fence.");
        }
    }

    @Test
    void aSchemaThatIsNoSchemaIsTheClientsError() throws Exception {
        try (TestServer server = server(Map.of())) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("hi",
                    "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\",\"schema\":"
                            + "{\"type\":\"no such type\"}}}"));
            ChatCompletionsTest.assertError(reply, 400, null);
            assertThat(reply.json().at("/error/param").asText()).isEqualTo("response_format");
            TestServer.Reply missing = server.postForReply("/v1/chat/completions", chat("hi",
                    "\"response_format\":{\"type\":\"json_schema\"}"));
            ChatCompletionsTest.assertError(missing, 400, null);
            assertThat(server.runs("m")).isEmpty();
        }
    }

    @Test
    void aSchemaWhoseReferencesLoopOrLeadNowhereIsRefusedBeforeTheRunAndNeverA500() throws Exception {
        try (TestServer server = server(Map.of())) {
            for (String schema : List.of("{\"$ref\":\"#\"}", "{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":"
                    + "{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}", "{\"type\":\"object\",\"properties\":"
                    + "{\"a\":{\"$ref\":\"#/$defs/missing\"}}}")) {
                String format = "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\","
                        + "\"schema\":" + schema + "}}";
                for (String stream : List.of("false", "true")) {
                    TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("[[json]] hi",
                            format + ",\"stream\":" + stream));
                    ChatCompletionsTest.assertError(reply, 400, null);
                    assertThat(reply.json().at("/error/param").asText()).isEqualTo("response_format");
                }
                TestServer.Reply ollama = server.postForReply("/api/chat", "{\"model\":\"m\",\"stream\":false,"
                        + "\"format\":" + schema + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
                assertThat(ollama.status()).as(ollama.body()).isEqualTo(400);
            }
            assertThat(server.runs("m")).isEmpty();

            // a tool's parameters the check cannot follow: the forced call is taken as the runtime gave it
            String broken = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
                    + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"$ref\":\"#/$defs/missing\"}}}}}],"
                    + "\"tool_choice\":\"required\"";
            for (String stream : List.of("false", "true")) {
                TestServer.Reply call = server.postForReply("/v1/chat/completions", chat("[[json]] Hi.",
                        broken + ",\"stream\":" + stream));
                assertThat(call.status()).as(call.body()).isEqualTo(200);
                assertThat(call.body()).contains("get_weather").doesNotContain("internal");
            }
        }
    }

    @Test
    void aRemoteReferenceInTheSchemaIsNeverFetched() throws Exception {
        try (TestServer server = server(Map.of())) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("[[json]] hi",
                    "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\",\"schema\":"
                            + "{\"$ref\":\"http://127.0.0.1:9/schema.json\"}}}"));
            assertThat(reply.status()).as(reply.body()).isEqualTo(400);
            assertThat(reply.json().at("/error/message").asText()).contains("JSON Schema cannot be used");
        }
    }

    @Test
    void ollamaFormatJsonAndSchema() throws Exception {
        try (TestServer server = server(Map.of())) {
            TestServer.Reply json = server.postForReply("/api/chat", "{\"model\":\"m\",\"stream\":false,\"format\":"
                    + "\"json\",\"messages\":[{\"role\":\"user\",\"content\":\"[[json:fenced]] hi\"}]}");
            assertThat(json.status()).as(json.body()).isEqualTo(200);
            assertThat(TestServer.JSON.readTree(json.json().at("/message/content").asText()).get("answer").asText())
                    .isEqualTo("sim");
            TestServer.Reply schema = server.postForReply("/api/generate", "{\"model\":\"m\",\"stream\":false,"
                    + "\"format\":" + SCHEMA + ",\"prompt\":\"[[json:invalid,valid]] Describe Paris.\"}");
            assertThat(schema.status()).as(schema.body()).isEqualTo(200);
            assertThat(TestServer.JSON.readTree(schema.json().get("response").asText()).get("population").isInt())
                    .isTrue();
            assertThat(schema.header("X-RKLLM-Output-Check")).isEqualTo("retried");
        }
    }

    @Test
    void legacyCompletionsTakeAResponseFormatToo() throws Exception {
        try (TestServer server = server(Map.of())) {
            TestServer.Reply reply = server.postForReply("/v1/completions", "{\"model\":\"m\",\"prompt\":"
                    + "\"[[json:trailing_comma]] Describe Paris.\"," + JSON_SCHEMA + "}");
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(TestServer.JSON.readTree(reply.json().at("/choices/0/text").asText()).get("city").asText())
                    .isEqualTo("sim");
        }
    }

    @Test
    void aNamedToolChoiceOffersThatToolAndGetsItsCall() throws Exception {
        try (TestServer server = server(Map.of())) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("What time is it in Paris?",
                    TOOLS + ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}"));
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.json().at("/choices/0/finish_reason").asText()).isEqualTo("tool_calls");
            assertThat(reply.json().at("/choices/0/message/tool_calls/0/function/name").asText())
                    .isEqualTo("get_weather");
            JsonNode tools = server.trace("m").stream().filter(t -> t.path("call").asText()
                    .equals("set_function_tools")).findFirst().orElseThrow();
            assertThat(tools.toString()).contains("get_weather").doesNotContain("get_time");
        }
    }

    @Test
    void aRequiredToolCallThatDidNotComeIsAskedForOnceMore() throws Exception {
        try (TestServer server = server(Map.of())) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("[[json:prose]] Hi there.",
                    TOOLS + ",\"tool_choice\":\"required\""));
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            // tools reach the model ordered by name (ToolOrder): the simulated model calls the first
            assertThat(reply.json().at("/choices/0/message/tool_calls/0/function/name").asText())
                    .isEqualTo("get_time");
            assertThat(reply.header("X-RKLLM-Output-Check")).isEqualTo("retried");
            assertThat(server.runs("m").getLast().get("prompt").asText()).contains("it called no function")
                    .contains("get_time, get_weather");

            TestServer.Reply never = server.postForReply("/v1/chat/completions", chat("[[json:prose,prose]] Hi.",
                    TOOLS + ",\"tool_choice\":\"required\""));
            ChatCompletionsTest.assertError(never, 422, "invalid_output");
        }
    }

    @Test
    void aForcedCallWhoseArgumentsBreakTheToolsSchemaIsAskedForOnceMore() throws Exception {
        try (TestServer server = server(Map.of())) {
            String named = TOOLS + ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}";
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("[[json:invalid]] Hi.", named));
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            JsonNode arguments = TestServer.JSON.readTree(reply.json()
                    .at("/choices/0/message/tool_calls/0/function/arguments").asText());
            assertThat(arguments.get("city").isTextual()).isTrue();
            assertThat(reply.header("X-RKLLM-Output-Check")).isEqualTo("retried");
            assertThat(server.runs("m").getLast().get("prompt").asText())
                    .contains("its arguments for get_weather did not conform to the function's parameters schema");

            TestServer.Reply never = server.postForReply("/v1/chat/completions", chat("[[json:invalid,invalid]] Hi.",
                    named));
            ChatCompletionsTest.assertError(never, 422, "invalid_output");
        }
    }

    @Test
    void withParallelToolCallsOffOnlyTheFirstCallIsReturned() throws Exception {
        try (TestServer server = server(Map.of())) {
            String two = "[[say:<tool_call>\\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\\n"
                    + "</tool_call>\\n<tool_call>\\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"CET\"}}\\n"
                    + "</tool_call>]]";
            JsonNode both = server.postForReply("/v1/chat/completions", chat(two, TOOLS)).json();
            assertThat(both.at("/choices/0/message/tool_calls")).hasSize(2);
            JsonNode one = server.postForReply("/v1/chat/completions", chat(two, TOOLS
                    + ",\"parallel_tool_calls\":false")).json();
            assertThat(one.at("/choices/0/message/tool_calls")).hasSize(1);
            assertThat(one.at("/choices/0/message/tool_calls/0/function/name").asText()).isEqualTo("get_weather");
            // streamed, the second call's pieces are left out too, not only the call they add up to
            String streamed = server.postForReply("/v1/chat/completions", chat(two, TOOLS
                    + ",\"parallel_tool_calls\":false,\"stream\":true")).body();
            List<Integer> indexes = new ArrayList<>();
            for (JsonNode chunk : SseEvents.parse(streamed).chunks()) {
                for (JsonNode call : chunk.at("/choices/0/delta/tool_calls")) {
                    indexes.add(call.path("index").asInt());
                }
            }
            assertThat(indexes).isNotEmpty().containsOnly(0);
            assertThat(streamed).doesNotContain("get_time").doesNotContain("CET");
        }
    }

    @Test
    void aCallCutByTheTokenLimitEndsTheAnswerWithLengthNotToolCalls() throws Exception {
        try (TestServer server = server(Map.of())) {
            String cut = "[[say:<tool_call>\\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris in the"
                    + " spring with its long avenues and its many cafes\"}}\\n</tool_call>]]";
            String streamed = server.postForReply("/v1/chat/completions", chat(cut, TOOLS
                    + ",\"max_tokens\":20,\"stream\":true")).body();
            StringBuilder arguments = new StringBuilder();
            String finish = null;
            for (JsonNode chunk : SseEvents.parse(streamed).chunks()) {
                for (JsonNode call : chunk.at("/choices/0/delta/tool_calls")) {
                    arguments.append(call.at("/function/arguments").asText(""));
                }
                if (chunk.at("/choices/0/finish_reason").isTextual()) {
                    finish = chunk.at("/choices/0/finish_reason").asText();
                }
            }
            // the call had begun: it ends as far as it was written, as valid JSON, and the answer says it was cut
            assertThat(finish).as(streamed).isEqualTo("length");
            JsonNode args = TestServer.JSON.readTree(arguments.toString());
            String whole = "Paris in the spring with its long avenues and its many cafes";
            assertThat(whole).startsWith(args.path("city").asText());
            assertThat(args.path("city").asText()).isNotEmpty().isNotEqualTo(whole);
        }
    }

    @Test
    void toolChoiceMustNameAnOfferedTool() throws Exception {
        try (TestServer server = server(Map.of())) {
            ChatCompletionsTest.assertError(server.postForReply("/v1/chat/completions", chat("hi", TOOLS
                    + ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"nope\"}}")), 400, null);
            ChatCompletionsTest.assertError(server.postForReply("/v1/chat/completions", chat("hi",
                    "\"tool_choice\":\"required\"")), 400, null);
            for (String choice : List.of("\"sometimes\"", "{\"type\":\"web_search\"}", "true")) {
                TestServer.Reply refused = server.postForReply("/v1/chat/completions", chat("hi", TOOLS
                        + ",\"tool_choice\":" + choice));
                ChatCompletionsTest.assertError(refused, 400, null);
                assertThat(refused.json().at("/error/message").asText()).as(choice).isEqualTo("'tool_choice' must be"
                        + " none, auto, required or {\"type\":\"function\",\"function\":{\"name\":...}}");
            }
            assertThat(server.runs("m")).isEmpty();
        }
    }
}
