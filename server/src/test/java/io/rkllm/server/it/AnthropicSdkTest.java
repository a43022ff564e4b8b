package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.BadRequestException;
import com.anthropic.errors.NotFoundException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.ContentBlock;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCountTokensParams;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolChoiceAny;
import com.anthropic.models.messages.ToolResultBlockParam;
import com.anthropic.models.messages.ToolUseBlock;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Anthropic's official Java SDK against {@code /v1/messages}: tool round trips (non-streamed and streamed, the
 * stream folded by the SDK's own accumulator), forced tools, count_tokens, errors as the SDK's exceptions.
 */
class AnthropicSdkTest {
    @TempDir
    Path dir;

    private TestServer server() {
        return TestServer.in(dir).model("m", Map.of()).sidecar("m", "family: qwen2.5\ncapabilities: {tools: true}\n")
                .start();
    }

    private static AnthropicClient client(TestServer server) {
        return AnthropicOkHttpClient.builder().baseUrl(server.url("")).apiKey("sk-ant-test").maxRetries(0)
                .timeout(Duration.ofSeconds(30)).build();
    }

    static Tool tool(String name, String property) {
        return Tool.builder().name(name).description("Looks up " + name)
                .inputSchema(Tool.InputSchema.builder().properties(Tool.InputSchema.Properties.builder()
                        .putAdditionalProperty(property, JsonValue.from(Map.of("type", "string"))).build())
                        .required(List.of(property)).build())
                .build();
    }

    private static MessageCreateParams.Builder ask(String question) {
        return MessageCreateParams.builder().model("m").maxTokens(300).addTool(tool("get_weather", "city"))
                .addTool(tool("get_time", "zone")).addUserMessage(question);
    }

    /** The second turn: the assistant's tool use as it came, and the tool's result. */
    private static MessageCreateParams second(String question, Message first, String result) {
        ToolUseBlock use = first.content().stream().filter(ContentBlock::isToolUse).map(ContentBlock::asToolUse)
                .findFirst().orElseThrow();
        return ask(question).addMessage(first).addUserMessageOfBlockParams(List.of(ContentBlockParam.ofToolResult(
                ToolResultBlockParam.builder().toolUseId(use.id()).content(result).build()))).build();
    }

    @Test
    void aToolRoundTrip() throws Exception {
        try (TestServer server = server()) {
            AnthropicClient client = client(server);
            String question = "What is the weather in Paris? Use get_weather.";
            Message first = client.messages().create(ask(question).build());
            assertThat(first.stopReason()).contains(StopReason.TOOL_USE);
            List<ContentBlock> uses = first.content().stream().filter(ContentBlock::isToolUse).toList();
            assertThat(uses).hasSize(1);
            ToolUseBlock use = uses.getFirst().asToolUse();
            assertThat(use.id()).startsWith("toolu_");
            assertThat(use.name()).isEqualTo("get_weather");
            assertThat(use._input().convert(Map.class)).isEqualTo(Map.of("city", "sim"));
            JsonNode tools = server.trace("m").stream().filter(t -> t.path("call").asText()
                    .equals("set_function_tools")).findFirst().orElseThrow();
            assertThat(tools.at("/tools").asText()).contains("\"parameters\"").contains("get_time");

            Message answer = client.messages().create(second(question, first, "18 degrees and sunny"));
            assertThat(answer.stopReason()).contains(StopReason.END_TURN);
            assertThat(answer.content()).hasSize(1);
            assertThat(answer.content().getFirst().asText().text())
                    .isEqualTo("The tool returned: \"18 degrees and sunny\".");
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("role").asText()).as("the result goes as a tool turn").isEqualTo("tool");
            assertThat(run.get("prompt").asText()).isEqualTo("18 degrees and sunny");
            assertThat(run.get("cache_before").asInt()).as("on top of the cached first turn")
                    .isEqualTo(server.runs("m").get(0).get("cache_after").asInt());
            assertThat(answer.usage().cacheReadInputTokens()).contains((long) run.get("cache_before").asInt());
            client.close();
        }
    }

    @Test
    void aStreamedToolRoundTripFoldsToTheSameMessages() throws Exception {
        try (TestServer server = server()) {
            AnthropicClient client = client(server);
            String question = "Time in Tokyo? Call get_time.";
            List<RawMessageStreamEvent> events = new ArrayList<>();
            MessageAccumulator accumulator = MessageAccumulator.create();
            try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(
                    ask(question).build())) {
                stream.stream().forEach(e -> {
                    events.add(e);
                    accumulator.accumulate(e);
                });
            }
            Message first = accumulator.message();
            assertThat(first.stopReason()).contains(StopReason.TOOL_USE);
            ToolUseBlock use = first.content().getLast().asToolUse();
            assertThat(use.name()).isEqualTo("get_time");
            assertThat(use._input().convert(Map.class)).isEqualTo(Map.of("zone", "sim"));
            assertThat(events.stream().filter(RawMessageStreamEvent::isContentBlockDelta)
                    .map(e -> e.asContentBlockDelta().delta()).filter(d -> d.isInputJson())
                    .map(d -> d.asInputJson().partialJson())).containsExactly("{\"zone\":\"", "sim", "\"}");

            StringBuilder text = new StringBuilder();
            try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(
                    second(question, first, "09:00 JST"))) {
                stream.stream().filter(RawMessageStreamEvent::isContentBlockDelta)
                        .map(e -> e.asContentBlockDelta().delta()).filter(d -> d.isText())
                        .forEach(d -> text.append(d.asText().text()));
            }
            assertThat(text).hasToString("The tool returned: \"09:00 JST\".");
            client.close();
        }
    }

    @Test
    void theRawStreamOfAToolUseFollowsAnthropicsOrder() throws Exception {
        try (TestServer server = server()) {
            String body = "{\"model\":\"m\",\"max_tokens\":99,\"stream\":true,\"tools\":[{\"name\":\"get_weather\","
                    + "\"input_schema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}],"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"get_weather for Oslo\"}]}";
            String raw = server.postForReply("/v1/messages", body).body();
            List<String> names = raw.lines().filter(l -> l.startsWith("event: "))
                    .map(l -> l.substring("event: ".length())).toList();
            // the input streams as it is written (llama-server's way): what more text cannot change, piece by piece
            assertThat(names).containsExactly("message_start", "content_block_start", "ping", "content_block_delta",
                    "content_block_delta", "content_block_delta", "content_block_stop", "message_delta",
                    "message_stop");
            List<JsonNode> data = raw.lines().filter(l -> l.startsWith("data: ")).map(l -> {
                try {
                    return TestServer.JSON.readTree(l.substring("data: ".length()));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }).toList();
            assertThat(data.get(1).get("content_block").toString()).startsWith("{\"type\":\"tool_use\",\"id\":\"toolu_")
                    .endsWith("\"name\":\"get_weather\",\"input\":{}}");
            assertThat(data.get(3).get("delta").toString())
                    .isEqualTo("{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\":\\\"\"}");
            assertThat(data.subList(3, 6)).extracting(d -> d.at("/delta/partial_json").asText())
                    .containsExactly("{\"city\":\"", "sim", "\"}");
            assertThat(data.get(7).at("/delta/stop_reason").asText()).isEqualTo("tool_use");
        }
    }

    @Test
    void forcedToolsAndDisabledParallelUse() throws Exception {
        try (TestServer server = server()) {
            AnthropicClient client = client(server);
            // prose first: "any" asks once more, and the second answer calls a tool
            Message forced = client.messages().create(ask("[[json:prose]] Hello there.")
                    .toolChoice(ToolChoiceAny.builder().build()).build());
            assertThat(forced.stopReason()).contains(StopReason.TOOL_USE);
            assertThat(forced.content()).anyMatch(ContentBlock::isToolUse);
            assertThat(server.runs("m")).hasSize(2);

            Message named = client.messages().create(ask("Anything at all").toolToolChoice("get_time").build());
            assertThat(named.content().getLast().asToolUse().name()).isEqualTo("get_time");

            String two = "[[say:<tool_call>\\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\\n"
                    + "</tool_call>\\n<tool_call>\\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"CET\"}}\\n"
                    + "</tool_call>]]";
            String tools = "\"tools\":[{\"name\":\"get_weather\",\"input_schema\":{\"type\":\"object\"}},"
                    + "{\"name\":\"get_time\",\"input_schema\":{\"type\":\"object\"}}]";
            JsonNode both = server.postForReply("/v1/messages", "{\"model\":\"m\",\"max_tokens\":99," + tools
                    + ",\"messages\":[{\"role\":\"user\",\"content\":" + ChatCompletionsTest.quote(two) + "}]}").json();
            assertThat(both.get("content")).extracting(b -> b.get("name").asText())
                    .containsExactly("get_weather", "get_time");
            JsonNode one = server.postForReply("/v1/messages", "{\"model\":\"m\",\"max_tokens\":99," + tools
                    + ",\"tool_choice\":{\"type\":\"auto\",\"disable_parallel_tool_use\":true},\"messages\":[{\"role\":"
                    + "\"user\",\"content\":" + ChatCompletionsTest.quote(two) + "}]}").json();
            assertThat(one.get("content")).extracting(b -> b.get("name").asText()).containsExactly("get_weather");
            assertThat(one.at("/content/0/input/city").asText()).isEqualTo("Paris");
            client.close();
        }
    }

    @Test
    void countTokensEstimatesThePromptWithoutRunningAnything() throws Exception {
        try (TestServer server = server()) {
            AnthropicClient client = client(server);
            long plain = client.messages().countTokens(MessageCountTokensParams.builder().model("m")
                    .addUserMessage("How many tokens is this sentence, roughly?").build()).inputTokens();
            long withTools = client.messages().countTokens(MessageCountTokensParams.builder().model("m")
                    .addUserMessage("How many tokens is this sentence, roughly?")
                    .addTool(tool("get_weather", "city")).build()).inputTokens();
            long withSystem = client.messages().countTokens(MessageCountTokensParams.builder().model("m")
                    .system("You are a terse assistant who answers every question in one single word, without any"
                            + " punctuation, greeting, explanation or apology, whatever the user asks of you.")
                    .addUserMessage("How many tokens is this sentence, roughly?").build()).inputTokens();
            assertThat(plain).isPositive();
            assertThat(withTools).isGreaterThan(plain);
            assertThat(withSystem).isGreaterThan(plain);
            assertThat(server.runs("m")).as("nothing ran").isEmpty();

            // the estimate is the one the context check uses: close to what the runtime then prefills
            client.messages().create(MessageCreateParams.builder().model("m").maxTokens(20)
                    .addUserMessage("How many tokens is this sentence, roughly?").build());
            int prefilled = server.runs("m").getLast().get("prefill_tokens").asInt();
            assertThat((double) plain).isBetween(prefilled * 0.5, prefilled * 2.0);

            assertThatThrownBy(() -> client.messages().countTokens(MessageCountTokensParams.builder().model("nope")
                    .addUserMessage("hi").build())).isInstanceOf(NotFoundException.class)
                    .hasMessageContaining("nope");
            client.close();
        }
    }

    @Test
    void refusalsAreAnthropicShapedSdkErrors() throws Exception {
        try (TestServer server = server()) {
            AnthropicClient client = client(server);
            assertThatThrownBy(() -> client.messages().create(ask("hi").toolToolChoice("no_such_tool").build()))
                    .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.getMessage())
                            .contains("no_such_tool"));
            TestServer.Reply serverTool = server.postForReply("/v1/messages", "{\"model\":\"m\",\"max_tokens\":9,"
                    + "\"tools\":[{\"type\":\"web_search_20250305\",\"name\":\"web_search\"}],\"messages\":[{\"role\":"
                    + "\"user\",\"content\":\"hi\"}]}");
            assertThat(serverTool.status()).isEqualTo(400);
            assertThat(serverTool.json().at("/error/type").asText()).isEqualTo("invalid_request_error");
            assertThat(serverTool.json().at("/error/message").asText()).contains("web_search_20250305");
            TestServer.Reply unknown = server.postForReply("/v1/messages/batches", "{}");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.json().get("type").asText()).isEqualTo("error");
            assertThat(unknown.json().at("/error/type").asText()).isEqualTo("not_found_error");
            TestServer.Reply count = server.postForReply("/v1/messages/count_tokens", "{\"model\":\"m\"}");
            assertThat(count.status()).isEqualTo(400);
            assertThat(count.json().at("/error/type").asText()).isEqualTo("invalid_request_error");
            client.close();
        }
    }
}
