package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.UnprocessableEntityException;
import com.openai.helpers.ResponseAccumulator;
import com.openai.models.responses.EasyInputMessage;
import com.openai.models.responses.FunctionTool;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseFunctionToolCall;
import com.openai.models.responses.ResponseInputItem;
import com.openai.models.responses.ResponseOutputItem;
import com.openai.models.responses.ResponseStatus;
import com.openai.models.responses.ResponseStreamEvent;
import com.openai.models.responses.StructuredResponse;
import com.openai.models.responses.Tool;
import com.openai.models.responses.ToolChoiceFunction;
import com.openai.models.responses.ToolChoiceOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import okhttp3.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v1/responses} (the OpenAI Responses API) with the official OpenAI Java SDK and on the wire: text,
 * streamed events in the documented order, tool round trips (stateless and with previous_response_id), structured
 * output, the stored responses and the refusals.
 */
class ResponsesApiTest {
    @TempDir
    Path dir;

    private TestServer server() {
        return TestServer.in(dir).model("m", Map.of()).sidecar("m", "family: qwen2.5\ncapabilities: {tools: true}\n")
                .start();
    }

    private TestServer thinkingServer() {
        return TestServer.in(dir).model("m", Map.of("thinking", "1")).sidecar("m", "family: qwen3\n").start();
    }

    private static OpenAIClient client(TestServer server) {
        return OpenAIOkHttpClient.builder().baseUrl(server.url("/v1")).apiKey("any").maxRetries(0)
                .timeout(Duration.ofSeconds(30)).build();
    }

    static Tool tool(String name, String property) {
        return Tool.ofFunction(FunctionTool.builder().name(name).description("Looks up " + name).strict(false)
                .parameters(FunctionTool.Parameters.builder()
                        .putAdditionalProperty("type", JsonValue.from("object"))
                        .putAdditionalProperty("properties", JsonValue.from(Map.of(property, Map.of("type", "string"))))
                        .build())
                .build());
    }

    private static ResponseCreateParams.Builder withTools() {
        return ResponseCreateParams.builder().model("m").tools(List.of(tool("get_weather", "city"),
                tool("get_time", "zone")));
    }

    private static String text(Response response) {
        StringBuilder text = new StringBuilder();
        response.output().stream().filter(ResponseOutputItem::isMessage)
                .flatMap(m -> m.asMessage().content().stream()).filter(c -> c.isOutputText())
                .forEach(c -> text.append(c.asOutputText().text()));
        return text.toString();
    }

    private static ResponseFunctionToolCall onlyCall(Response response) {
        List<ResponseFunctionToolCall> calls = response.output().stream().filter(ResponseOutputItem::isFunctionCall)
                .map(ResponseOutputItem::asFunctionCall).toList();
        assertThat(calls).hasSize(1);
        return calls.getFirst();
    }

    /** One named SSE event of a Responses stream. */
    record Event(String type, JsonNode data) {
    }

    static List<Event> events(String raw) throws Exception {
        List<Event> events = new ArrayList<>();
        for (String block : raw.split("\n\n")) {
            if (block.isBlank() || block.startsWith(":")) {
                continue;
            }
            String[] lines = block.split("\n");
            assertThat(lines).as(block).hasSize(2);
            assertThat(lines[0]).startsWith("event: ");
            JsonNode data = TestServer.JSON.readTree(lines[1].substring("data: ".length()));
            assertThat(data.get("type").asText()).isEqualTo(lines[0].substring("event: ".length()));
            events.add(new Event(data.get("type").asText(), data));
        }
        for (int i = 0; i < events.size(); i++) {
            assertThat(events.get(i).data().get("sequence_number").asInt()).isEqualTo(i);
        }
        return events;
    }

    @Test
    void aTextResponseWithInstructions() throws Exception {
        try (TestServer server = server()) {
            OpenAIClient client = client(server);
            Response response = client.responses().create(ResponseCreateParams.builder().model("m")
                    .instructions("Be brief.").input("[[say:Hello, wörld 日本!]]").maxOutputTokens(100)
                    .temperature(0.5).build());
            assertThat(response.id()).startsWith("resp_");
            assertThat(response.status()).contains(ResponseStatus.COMPLETED);
            assertThat(response.model().asString()).isEqualTo("m");
            assertThat(response.output()).hasSize(1);
            assertThat(text(response)).isEqualTo("Hello, wörld 日本!");
            assertThat(response.instructions().orElseThrow().asString()).isEqualTo("Be brief.");
            assertThat(response.maxOutputTokens()).contains(100L);
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("prefilled_text").asText()).contains("Be brief.");
            assertThat(run.at("/sampling/temperature").asDouble()).isEqualTo(0.5);
            var usage = response.usage().orElseThrow();
            assertThat(usage.outputTokens()).isEqualTo(run.get("generate_tokens").asLong());
            assertThat(usage.inputTokens()).isEqualTo(run.get("prefill_tokens").asLong()
                    + usage.inputTokensDetails().cachedTokens());
            assertThat(usage.totalTokens()).isEqualTo(usage.inputTokens() + usage.outputTokens());
            client.close();
        }
    }

    @Test
    void theStreamFollowsTheDocumentedOrderAndAccumulatesToTheAnswer() throws Exception {
        try (TestServer server = thinkingServer()) {
            String raw = server.postForReply("/v1/responses", "{\"model\":\"m\",\"stream\":true,\"input\":"
                    + "\"[[say:<think>\\nweigh it up\\n</think>\\n\\nThe answer is 42.]]\"}").body();
            List<Event> events = events(raw);
            List<String> types = events.stream().map(Event::type).distinct().toList();
            assertThat(types).containsExactly("response.created", "response.in_progress",
                    "response.output_item.added", "response.content_part.added", "response.reasoning_text.delta",
                    "response.reasoning_text.done", "response.content_part.done", "response.output_item.done",
                    "response.output_text.delta", "response.output_text.done", "response.completed");
            List<String> sequence = events.stream().map(Event::type)
                    .filter(t -> !t.endsWith(".delta")).toList();
            assertThat(sequence).containsExactly("response.created", "response.in_progress",
                    "response.output_item.added", "response.content_part.added", "response.reasoning_text.done",
                    "response.content_part.done", "response.output_item.done",
                    "response.output_item.added", "response.content_part.added", "response.output_text.done",
                    "response.content_part.done", "response.output_item.done", "response.completed");
            assertThat(events.get(0).data().at("/response/status").asText()).isEqualTo("in_progress");
            StringBuilder reasoning = new StringBuilder();
            StringBuilder answer = new StringBuilder();
            for (Event e : events) {
                if (e.type().equals("response.reasoning_text.delta")) {
                    reasoning.append(e.data().get("delta").asText());
                    assertThat(e.data().get("output_index").asInt()).isZero();
                } else if (e.type().equals("response.output_text.delta")) {
                    answer.append(e.data().get("delta").asText());
                    assertThat(e.data().get("output_index").asInt()).isEqualTo(1);
                    assertThat(e.data().get("content_index").asInt()).isZero();
                }
            }
            assertThat(reasoning).hasToString("weigh it up\n");
            assertThat(answer).hasToString("The answer is 42.");
            JsonNode done = events.getLast().data().get("response");
            assertThat(done.get("status").asText()).isEqualTo("completed");
            assertThat(done.at("/output/0/type").asText()).isEqualTo("reasoning");
            assertThat(done.at("/output/0/content/0").toString())
                    .isEqualTo("{\"type\":\"reasoning_text\",\"text\":\"weigh it up\\n\"}");
            assertThat(done.at("/output/1/id").asText()).isEqualTo(events.stream()
                    .filter(e -> e.type().equals("response.output_text.delta")).findFirst().orElseThrow().data()
                    .get("item_id").asText());
            assertThat(done.at("/output/1/content/0/text").asText()).isEqualTo("The answer is 42.");
            assertThat(done.at("/usage/output_tokens_details/reasoning_tokens").asInt()).isPositive()
                    .isLessThan(done.at("/usage/output_tokens").asInt());

            // the SDK folds the same stream to the same response
            OpenAIClient client = client(server);
            ResponseAccumulator accumulator = ResponseAccumulator.create();
            try (StreamResponse<ResponseStreamEvent> stream = client.responses().createStreaming(
                    ResponseCreateParams.builder().model("m").input("Why is the sky blue?").build())) {
                stream.stream().forEach(accumulator::accumulate);
            }
            Response streamed = accumulator.response();
            assertThat(streamed.output()).extracting(ResponseOutputItem::isReasoning).containsExactly(true, false);
            assertThat(text(streamed)).isNotBlank().isEqualTo(server.runs("m").getLast().get("output").asText()
                    .replaceAll("(?s)<think>.*</think>\\s*", ""));
            client.close();
        }
    }

    @Test
    void aReasoningSummaryAskedForCarriesTheReasoning() throws Exception {
        try (TestServer server = thinkingServer()) {
            List<Event> events = events(server.postForReply("/v1/responses", "{\"model\":\"m\",\"stream\":true,"
                    + "\"reasoning\":{\"effort\":\"low\",\"summary\":\"auto\"},\"input\":\"[[say:<think>\\nhmm\\n</think>"
                    + "\\n\\nYes.]]\"}").body());
            assertThat(events.stream().map(Event::type).filter(t -> t.contains("reasoning")).distinct())
                    .containsExactly("response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
                            "response.reasoning_summary_text.done", "response.reasoning_summary_part.done");
            JsonNode done = events.getLast().data().get("response");
            assertThat(done.at("/output/0/summary/0").toString())
                    .isEqualTo("{\"type\":\"summary_text\",\"text\":\"hmm\\n\"}");
            assertThat(done.at("/reasoning/summary").asText()).isEqualTo("auto");

            JsonNode off = server.postForReply("/v1/responses", "{\"model\":\"m\",\"reasoning\":{\"effort\":"
                    + "\"minimal\"},\"input\":\"Why?\"}").json();
            assertThat(off.get("output")).extracting(o -> o.get("type").asText()).containsExactly("message");
        }
    }

    @Test
    void aStatelessToolRoundTrip() throws Exception {
        try (TestServer server = server()) {
            OpenAIClient client = client(server);
            String question = "What is the weather in Paris? Use get_weather.";
            Response first = client.responses().create(withTools().input(question).build());
            ResponseFunctionToolCall call = onlyCall(first);
            assertThat(call.name()).isEqualTo("get_weather");
            assertThat(call.arguments()).isEqualTo("{\"city\":\"sim\"}");
            assertThat(call.callId()).startsWith("call_");
            assertThat(call.id().orElseThrow()).startsWith("fc_");
            assertThat(first.output()).noneMatch(ResponseOutputItem::isMessage);

            Response second = client.responses().create(withTools().store(false).inputOfResponse(List.of(
                    ResponseInputItem.ofEasyInputMessage(EasyInputMessage.builder().role(EasyInputMessage.Role.USER)
                            .content(question).build()),
                    ResponseInputItem.ofFunctionCall(call),
                    ResponseInputItem.ofFunctionCallOutput(ResponseInputItem.FunctionCallOutput.builder()
                            .callId(call.callId()).output("18 degrees and sunny").build()))).build());
            assertThat(text(second)).isEqualTo("The tool returned: \"18 degrees and sunny\".");
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("role").asText()).isEqualTo("tool");
            assertThat(run.get("cache_before").asInt()).as("on top of the cached first turn")
                    .isEqualTo(server.runs("m").get(0).get("cache_after").asInt());
            assertThat(second.usage().orElseThrow().inputTokensDetails().cachedTokens())
                    .isEqualTo(run.get("cache_before").asLong());

            assertThatThrownBy(() -> client.responses().create(ResponseCreateParams.builder().model("m")
                    .previousResponseId(second.id()).input("And tomorrow?").build()))
                    .as("store: false keeps nothing")
                    .isInstanceOfSatisfying(BadRequestException.class, e -> {
                        assertThat(e.code()).contains("previous_response_not_found");
                        assertThat(e.param()).contains("previous_response_id");
                    });
            client.close();
        }
    }

    @Test
    void aStreamedToolRoundTripWithPreviousResponseId() throws Exception {
        try (TestServer server = server()) {
            OpenAIClient client = client(server);
            ResponseAccumulator accumulator = ResponseAccumulator.create();
            try (StreamResponse<ResponseStreamEvent> stream = client.responses().createStreaming(withTools()
                    .input("Time in Tokyo? Call get_time.").build())) {
                stream.stream().forEach(accumulator::accumulate);
            }
            Response first = accumulator.response();
            ResponseFunctionToolCall call = onlyCall(first);
            assertThat(call.name()).isEqualTo("get_time");

            Response second = client.responses().create(withTools().previousResponseId(first.id())
                    .inputOfResponse(List.of(ResponseInputItem.ofFunctionCallOutput(
                            ResponseInputItem.FunctionCallOutput.builder().callId(call.callId()).output("09:00 JST")
                                    .build()))).build());
            assertThat(text(second)).isEqualTo("The tool returned: \"09:00 JST\".");
            assertThat(second.previousResponseId()).contains(first.id());
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("role").asText()).isEqualTo("tool");
            assertThat(run.get("prompt").asText()).isEqualTo("09:00 JST");

            // a third turn continues the second response (with the same tools: other tools cost the cache)
            Response third = client.responses().create(withTools().previousResponseId(second.id())
                    .input("[[say:Thanks!]]").build());
            assertThat(text(third)).isEqualTo("Thanks!");
            assertThat(server.runs("m").getLast().get("prompt").asText()).isEqualTo("[[say:Thanks!]]");

            // the raw stream of a call: added, the arguments as they are written (llama-server's way), done
            List<Event> events = events(server.postForReply("/v1/responses", "{\"model\":\"m\",\"stream\":true,"
                    + "\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\","
                    + "\"properties\":{\"city\":{\"type\":\"string\"}}}}],\"input\":\"get_weather for Oslo\"}").body());
            assertThat(events).extracting(Event::type).containsExactly("response.created", "response.in_progress",
                    "response.output_item.added", "response.function_call_arguments.delta",
                    "response.function_call_arguments.delta", "response.function_call_arguments.delta",
                    "response.function_call_arguments.done", "response.output_item.done", "response.completed");
            assertThat(events.get(2).data().at("/item/status").asText()).isEqualTo("in_progress");
            assertThat(events.subList(3, 6)).extracting(e -> e.data().get("delta").asText())
                    .containsExactly("{\"city\":\"", "sim", "\"}");
            assertThat(events.subList(3, 6)).extracting(e -> e.data().get("item_id").asText())
                    .containsOnly(events.get(7).data().at("/item/id").asText());
            assertThat(events.get(6).data().get("arguments").asText()).isEqualTo("{\"city\":\"sim\"}");
            assertThat(events.get(7).data().at("/item/call_id").asText()).startsWith("call_");
            client.close();
        }
    }

    @Test
    void itemReferencesStandForTheStoredOutputAsTheAiSdkSendsThem() throws Exception {
        try (TestServer server = server()) {
            JsonNode first = server.postForReply("/v1/responses", "{\"model\":\"m\",\"input\":[{\"role\":\"user\","
                    + "\"content\":[{\"type\":\"input_text\",\"text\":\"[[say:Hi, I am here.]]\"}]}]}").json();
            String messageId = first.at("/output/0/id").asText();
            assertThat(messageId).startsWith("msg_");
            TestServer.Reply second = server.postForReply("/v1/responses", "{\"model\":\"m\",\"input\":["
                    + "{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"[[say:Hi, I am here.]]\"}]},"
                    + "{\"type\":\"item_reference\",\"id\":\"" + messageId + "\"},"
                    + "{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"[[say:Good.]]\"}]}]}");
            assertThat(second.json().at("/output/0/content/0/text").asText()).isEqualTo("Good.");
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("prompt").asText()).as("the referenced answer is the cached one").isEqualTo("[[say:Good.]]");
            assertThat(run.get("cache_before").asInt()).isEqualTo(server.runs("m").get(0).get("cache_after").asInt());
        }
    }

    @Test
    void forcedAndNamedToolChoice() throws Exception {
        try (TestServer server = server()) {
            OpenAIClient client = client(server);
            Response forced = client.responses().create(withTools().input("[[json:prose]] Hello there.")
                    .toolChoice(ToolChoiceOptions.REQUIRED).build());
            // tools reach the model ordered by name (ToolOrder): the simulated model calls the first
            assertThat(onlyCall(forced).name()).isEqualTo("get_time");
            assertThat(server.runs("m")).hasSize(2);
            Response named = client.responses().create(withTools().input("Anything")
                    .toolChoice(ToolChoiceFunction.builder().name("get_time").build()).build());
            assertThat(onlyCall(named).name()).isEqualTo("get_time");
            client.close();
        }
    }

    /** The answer's shape, as a class the SDK derives the JSON Schema from. */
    public static final class City {
        public String city;
        public long population;
    }

    @Test
    void structuredOutputFromAClassAndItsFailure() throws Exception {
        try (TestServer server = server()) {
            OpenAIClient client = client(server);
            StructuredResponse<City> response = client.responses().create(ResponseCreateParams.builder().model("m")
                    .input("[[json:trailing_comma]] Describe Paris.").text(City.class).build());
            City city = response.output().stream().flatMap(o -> o.message().stream())
                    .flatMap(m -> m.content().stream()).flatMap(c -> c.outputText().stream()).findFirst().orElseThrow();
            assertThat(city.city).isEqualTo("sim");
            assertThat(server.runs("m").getLast().get("prompt").asText()).contains("\"population\"");

            String schema = "\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"city\",\"strict\":true,"
                    + "\"schema\":" + StructuredOutputTest.SCHEMA + "}}";
            TestServer.Reply retried = server.postForReply("/v1/responses", "{\"model\":\"m\"," + schema
                    + ",\"input\":\"[[json:invalid,valid]] Describe Paris.\"}");
            assertThat(retried.header("X-RKLLM-Output-Check")).isEqualTo("retried");
            assertThat(TestServer.JSON.readTree(retried.json().at("/output/0/content/0/text").asText())
                    .get("population").isInt()).isTrue();
            assertThat(retried.json().at("/text/format/name").asText()).isEqualTo("city");

            assertThatThrownBy(() -> client.responses().create(ResponseCreateParams.builder().model("m")
                    .input("[[json:prose,invalid]] Describe Paris.").text(City.class).build()))
                    .isInstanceOfSatisfying(UnprocessableEntityException.class, e ->
                            assertThat(e.code()).contains("invalid_output"));

            TestServer.Reply object = server.postForReply("/v1/responses", "{\"model\":\"m\",\"text\":{\"format\":"
                    + "{\"type\":\"json_object\"}},\"input\":\"[[json:fenced]] Tell me.\"}");
            assertThat(TestServer.JSON.readTree(object.json().at("/output/0/content/0/text").asText())
                    .get("answer").asText()).isEqualTo("sim");
            client.close();
        }
    }

    @Test
    void theTokenLimitMakesAnIncompleteResponse() throws Exception {
        try (TestServer server = server()) {
            OpenAIClient client = client(server);
            Response cut = client.responses().create(ResponseCreateParams.builder().model("m")
                    .input("[[tokens:40]]").maxOutputTokens(5).build());
            assertThat(cut.status()).contains(ResponseStatus.INCOMPLETE);
            assertThat(cut.incompleteDetails().orElseThrow().reason().orElseThrow().asString())
                    .isEqualTo("max_output_tokens");
            assertThat(cut.usage().orElseThrow().outputTokens()).isEqualTo(5);
            List<Event> events = events(server.postForReply("/v1/responses", "{\"model\":\"m\",\"stream\":true,"
                    + "\"max_output_tokens\":5,\"input\":\"[[tokens:40]]\"}").body());
            assertThat(events.getLast().type()).isEqualTo("response.incomplete");
            assertThat(events.getLast().data().at("/response/output/0/status").asText()).isEqualTo("incomplete");
            client.close();
        }
    }

    @Test
    void storedResponsesCanBeReadAndDeleted() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of())
                .set("limits.stored_responses", "1").start()) {
            JsonNode first = server.postForReply("/v1/responses", "{\"model\":\"m\",\"input\":\"[[say:one]]\"}").json();
            String id = first.get("id").asText();
            assertThat(server.getForReply("/v1/responses/" + id).json()).isEqualTo(first);
            JsonNode second = server.postForReply("/v1/responses", "{\"model\":\"m\",\"input\":\"[[say:two]]\"}")
                    .json();
            TestServer.Reply dropped = server.getForReply("/v1/responses/" + id);
            assertThat(dropped.status()).as("one is kept: the oldest is dropped").isEqualTo(404);
            assertThat(dropped.json().at("/error/code").asText()).isEqualTo("not_found");
            Request delete = new Request.Builder().url(server.url("/v1/responses/" + second.get("id").asText()))
                    .delete().build();
            try (okhttp3.Response r = server.client().newCall(delete).execute()) {
                assertThat(r.code()).isEqualTo(200);
                assertThat(TestServer.JSON.readTree(r.body().string()).get("deleted").asBoolean()).isTrue();
            }
            assertThat(server.getForReply("/v1/responses/" + second.get("id").asText()).status()).isEqualTo(404);
        }
    }

    @Test
    void whatCannotBeDoneIsRefusedNamingTheField() throws Exception {
        try (TestServer server = server()) {
            Map<String, String> refused = Map.of(
                    "{\"model\":\"m\",\"input\":\"hi\",\"tools\":[{\"type\":\"shell\"}]}", "tools[0].type",
                    "{\"model\":\"m\",\"input\":\"hi\",\"tools\":[{\"type\":\"namespace\",\"name\":\"a\","
                            + "\"description\":\"\",\"tools\":[{\"type\":\"function\",\"name\":\"f\"}]},{\"type\":"
                            + "\"namespace\",\"name\":\"b\",\"description\":\"\",\"tools\":[{\"type\":\"function\","
                            + "\"name\":\"f\"}]}]}", "tools[1].tools[0].name",
                    "{\"model\":\"m\",\"input\":\"hi\",\"background\":true}", "background",
                    "{\"model\":\"m\",\"input\":\"hi\",\"conversation\":\"conv_1\"}", "conversation",
                    "{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_file\","
                            + "\"file_id\":\"file_1\"}]}]}", "input[0].content",
                    "{\"model\":\"m\",\"input\":[{\"type\":\"item_reference\",\"id\":\"msg_1\"}]}", "input[0]",
                    "{\"model\":\"m\",\"input\":\"hi\",\"previous_response_id\":\"resp_nope\"}", "previous_response_id",
                    "{\"model\":\"m\"}", "input",
                    "{\"model\":\"m\",\"input\":\"hi\",\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"x\"}}}",
                    "text.format",
                    "{\"model\":\"m\",\"input\":\"hi\",\"tools\":[{\"type\":\"function\",\"name\":\"f\"}],"
                            + "\"tool_choice\":{\"type\":\"web_search_preview\"}}", "tool_choice");
            for (Map.Entry<String, String> e : refused.entrySet()) {
                TestServer.Reply reply = server.postForReply("/v1/responses", e.getKey());
                assertThat(reply.status()).as(e.getKey()).isEqualTo(400);
                assertThat(reply.json().at("/error/param").asText()).as(e.getKey()).isEqualTo(e.getValue());
            }
            assertThat(server.runs("m")).isEmpty();
        }
    }

    @Test
    void namespaceToolsAreOfferedAndTheirCallsNameTheNamespaceAsCodexSendsThem() throws Exception {
        try (TestServer server = server()) {
            String tools = "\"tools\":[{\"type\":\"function\",\"name\":\"exec_command\",\"parameters\":{"
                    + "\"type\":\"object\",\"properties\":{\"cmd\":{\"type\":\"string\"}}}},"
                    + "{\"type\":\"namespace\",\"name\":\"multi_agent_v1\",\"description\":\"Sub-agents.\","
                    + "\"tools\":[{\"type\":\"function\",\"name\":\"close_agent\",\"strict\":false,\"parameters\":{"
                    + "\"type\":\"object\",\"properties\":{\"target\":{\"type\":\"string\"}},"
                    + "\"required\":[\"target\"]}}]},"
                    + "{\"type\":\"web_search\",\"external_web_access\":true}]";
            TestServer.Reply reply = server.postForReply("/v1/responses", "{\"model\":\"m\",\"input\":"
                    + "\"Use close_agent on the explorer.\"," + tools + "}");
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.header("X-RKLLM-Tools-Ignored")).startsWith("web_search");
            JsonNode call = reply.json().at("/output/0");
            assertThat(call.get("type").asText()).isEqualTo("function_call");
            assertThat(call.get("name").asText()).isEqualTo("close_agent");
            assertThat(call.get("namespace").asText()).isEqualTo("multi_agent_v1");
            assertThat(TestServer.JSON.readTree(call.get("arguments").asText()).get("target").isTextual()).isTrue();
            JsonNode run = server.runs("m").getLast();
            assertThat(server.trace("m").stream().filter(t -> t.get("call").asText().equals("set_function_tools"))
                    .reduce((a, b) -> b).orElseThrow().toString()).contains("close_agent").contains("exec_command")
                    .doesNotContain("web_search");
            assertThat(run.get("output").asText()).contains("close_agent");

            // the round trip: the call comes back with its namespace, its output as a tool turn
            TestServer.Reply next = server.postForReply("/v1/responses", "{\"model\":\"m\",\"input\":["
                    + "{\"role\":\"user\",\"content\":\"Use close_agent on the explorer.\"},"
                    + "{\"type\":\"function_call\",\"call_id\":\"" + call.get("call_id").asText() + "\","
                    + "\"name\":\"close_agent\",\"namespace\":\"multi_agent_v1\",\"arguments\":"
                    + TestServer.JSON.writeValueAsString(call.get("arguments").asText()) + "},"
                    + "{\"type\":\"function_call_output\",\"call_id\":\"" + call.get("call_id").asText() + "\","
                    + "\"output\":\"closed\"}]," + tools + "}");
            assertThat(next.status()).as(next.body()).isEqualTo(200);
            assertThat(server.runs("m").getLast().get("role").asText()).isEqualTo("tool");
            assertThat(next.json().at("/usage/input_tokens_details/cached_tokens").asInt()).isPositive();
        }
    }

    @Test
    void aFailureAfterTheStreamStartedIsAFailedResponse() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("fault", "error_after=3")).start()) {
            List<Event> events = events(server.postForReply("/v1/responses", "{\"model\":\"m\",\"stream\":true,"
                    + "\"input\":\"[[tokens:20]]\"}").body());
            Event last = events.getLast();
            assertThat(last.type()).isEqualTo("response.failed");
            assertThat(last.data().at("/response/status").asText()).isEqualTo("failed");
            assertThat(last.data().at("/response/error/code").asText()).isEqualTo("runtime_error");
            assertThat(last.data().at("/response/error/message").asText()).contains("failed while generating");
            assertThat(events).extracting(Event::type).doesNotContain("response.completed");
        }
    }
}
