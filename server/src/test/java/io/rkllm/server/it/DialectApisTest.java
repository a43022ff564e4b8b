package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Models that do not speak Hermes, through every API: a simulated gpt-oss (harmony channels: its analysis, its final
 * answer, its calls as messages to {@code functions.NAME}) and a simulated Qwen3-Coder (XML calls, every argument
 * written as text), each asked for a call and for an answer over OpenAI's chat completions (whole and streamed),
 * the Responses API, Anthropic's Messages and Ollama's chat. The call comes back as the API's call, typed by the
 * tool's schema; the reasoning as the API's reasoning; no marker of the dialect reaches a client.
 */
class DialectApisTest {
    private static final String TOOL_SCHEMA = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
            + "\"days\":{\"type\":\"integer\"}},\"required\":[\"city\",\"days\"]}";
    private static final String OPENAI_TOOLS = "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"description\":\"The weather.\",\"parameters\":" + TOOL_SCHEMA + "}}]";
    private static final String ANTHROPIC_TOOLS = "[{\"name\":\"get_weather\",\"description\":\"The weather.\","
            + "\"input_schema\":" + TOOL_SCHEMA + "}]";
    private static final String ASK_TOOL = "What does get_weather say for Paris?";
    private static final List<String> MARKERS = List.of("<|channel|>", "<|message|>", "<|start|>", "<|end|>",
            "<|constrain|>", "to=functions", "<tool_call>", "</tool_call>", "<function=", "<parameter=", "<think>",
            "</think>");

    @TempDir
    static Path dir;
    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.in(dir)
                .model("oss", Map.of("thinking", "1", "dialect", "gpt-oss", "reply_tokens", "12"))
                .sidecar("oss", "family: gpt-oss\ndialect: gpt-oss\n")
                .model("coder", Map.of("dialect", "qwen3-coder", "reply_tokens", "12"))
                .sidecar("coder", "family: qwen3-coder\n")
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static Stream<Arguments> models() {
        return Stream.of(Arguments.of("oss", true), Arguments.of("coder", false));
    }

    private static void noMarkers(String text) {
        for (String marker : MARKERS) {
            assertThat(text).as("what the client gets").doesNotContain(marker);
        }
    }

    private static void typedArguments(String argumentsJson) throws Exception {
        JsonNode args = TestServer.JSON.readTree(argumentsJson);
        assertThat(args.path("city").isTextual()).as(argumentsJson).isTrue();
        assertThat(args.path("days").isIntegralNumber()).as(argumentsJson).isTrue();
    }

    @ParameterizedTest
    @MethodSource("models")
    void theModelSaysItsDialect(String model, boolean thinks) throws Exception {
        JsonNode info = server.getForReply("/v1/models/" + model).json();
        assertThat(info.path("dialect").asText()).isEqualTo(thinks ? "gpt-oss" : "qwen3-coder");
        assertThat(info.path("chat_template").asText()).isEqualTo("none");
    }

    @ParameterizedTest
    @MethodSource("models")
    void openAiChatCallsTheTool(String model, boolean thinks) throws Exception {
        TestServer.Reply reply = server.postForReply("/v1/chat/completions", "{\"model\":\"" + model
                + "\",\"tools\":" + OPENAI_TOOLS + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + ASK_TOOL
                + "\"}]}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode choice = reply.json().path("choices").get(0);
        assertThat(choice.path("finish_reason").asText()).isEqualTo("tool_calls");
        JsonNode call = choice.path("message").path("tool_calls").get(0);
        assertThat(call.path("function").path("name").asText()).isEqualTo("get_weather");
        typedArguments(call.path("function").path("arguments").asText());
        assertThat(choice.path("message").path("content").asText("")).isEmpty();
        assertThat(choice.path("message").path("reasoning_content").asText("").isEmpty()).isEqualTo(!thinks);
        noMarkers(reply.body());
    }

    @ParameterizedTest
    @MethodSource("models")
    void openAiChatStreamsTheCallAndTheAnswer(String model, boolean thinks) throws Exception {
        for (String ask : List.of(ASK_TOOL, "Tell me about the NPU.")) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", "{\"model\":\"" + model
                    + "\",\"stream\":true,\"tools\":" + OPENAI_TOOLS + ",\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"" + ask + "\"}]}");
            assertThat(reply.status()).isEqualTo(200);
            StringBuilder content = new StringBuilder();
            StringBuilder reasoning = new StringBuilder();
            List<String> names = new ArrayList<>();
            List<String> arguments = new ArrayList<>();
            int argumentPieces = 0;
            String finish = "";
            for (JsonNode chunk : SseEvents.parse(reply.body()).chunks()) {
                for (JsonNode choice : chunk.path("choices")) {
                    JsonNode delta = choice.path("delta");
                    content.append(delta.path("content").asText(""));
                    reasoning.append(delta.path("reasoning_content").asText(""));
                    for (JsonNode call : delta.path("tool_calls")) {
                        if (call.path("function").has("name")) {
                            names.add(call.path("function").path("name").asText());
                            arguments.add("");
                        }
                        int last = arguments.size() - 1;
                        String piece = call.path("function").path("arguments").asText("");
                        arguments.set(last, arguments.get(last) + piece);
                        argumentPieces += piece.isEmpty() ? 0 : 1;
                    }
                    if (!choice.path("finish_reason").isNull() && choice.has("finish_reason")) {
                        finish = choice.path("finish_reason").asText();
                    }
                }
            }
            noMarkers(reply.body());
            assertThat(reasoning.isEmpty()).as(ask).isEqualTo(!thinks);
            if (ask.equals(ASK_TOOL)) {
                assertThat(finish).isEqualTo("tool_calls");
                assertThat(names).containsExactly("get_weather");
                typedArguments(arguments.getFirst());
                // the call streams as it is written, as llama-server's: its name once, its arguments in pieces
                assertThat(argumentPieces).as(reply.body()).isGreaterThan(2);
            } else {
                assertThat(finish).isEqualTo("stop");
                assertThat(names).isEmpty();
                assertThat(content.toString()).isNotBlank();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("models")
    void aFollowUpReusesTheAnswerTheModelWrote(String model, boolean thinks) throws Exception {
        // the answer sent back (its text, its reasoning) is the one the cache holds: only the new turn is prefilled
        String first = "{\"model\":\"" + model + "\",\"user\":\"follow-" + model + "\",\"messages\":[{\"role\":"
                + "\"user\",\"content\":\"Tell me about the NPU.\"}]}";
        JsonNode answer = server.postForReply("/v1/chat/completions", first).json().path("choices").get(0)
                .path("message");
        String followUp = "{\"model\":\"" + model + "\",\"user\":\"follow-" + model + "\",\"messages\":[{\"role\":"
                + "\"user\",\"content\":\"Tell me about the NPU.\"}," + answer + ",{\"role\":\"user\",\"content\":"
                + "\"And the GPU?\"}]}";
        JsonNode usage = server.postForReply("/v1/chat/completions", followUp).json().path("usage");
        assertThat(usage.path("prompt_tokens_details").path("cached_tokens").asInt()).as(usage.toString())
                .isGreaterThan(0);
    }

    @ParameterizedTest
    @MethodSource("models")
    void applyTemplateIsForModelsWithATemplateOfTheirOwn(String model, boolean thinks) throws Exception {
        // an .rkllm model's runtime builds its prompt: said without loading it
        TestServer.Reply reply = server.postForReply("/apply-template", "{\"model\":\"" + model + "\",\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body()).contains("builds the prompt from the template the model was converted with");
    }

    @ParameterizedTest
    @MethodSource("models")
    void tokenizeIsForModelsWhoseTokenizerTheServerCanAsk(String model, boolean thinks) throws Exception {
        // the RKLLM runtime tokenizes inside: said without loading the model
        TestServer.Reply reply = server.postForReply("/tokenize", "{\"model\":\"" + model
                + "\",\"content\":\"Hi\"}");
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.json().at("/error/message").asText()).isEqualTo("The model '" + model + "' runs on RKLLM"
                + " runtime, which reads its prompts with a tokenizer of its own the server cannot ask: GGUF models'"
                + " tokenizers are served");
    }

    @ParameterizedTest
    @MethodSource("models")
    void responsesApiCallsTheTool(String model, boolean thinks) throws Exception {
        TestServer.Reply reply = server.postForReply("/v1/responses", "{\"model\":\"" + model + "\",\"tools\":"
                + "[{\"type\":\"function\",\"name\":\"get_weather\",\"parameters\":" + TOOL_SCHEMA + "}],"
                + "\"input\":\"" + ASK_TOOL + "\"}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        List<String> types = new ArrayList<>();
        for (JsonNode item : reply.json().path("output")) {
            types.add(item.path("type").asText());
            if (item.path("type").asText().equals("function_call")) {
                assertThat(item.path("name").asText()).isEqualTo("get_weather");
                typedArguments(item.path("arguments").asText());
            }
        }
        assertThat(types).contains("function_call");
        assertThat(types.contains("reasoning")).isEqualTo(thinks);
        noMarkers(reply.body());
    }

    @ParameterizedTest
    @MethodSource("models")
    void anthropicMessagesUseTheTool(String model, boolean thinks) throws Exception {
        TestServer.Reply reply = server.postForReply("/v1/messages", "{\"model\":\"" + model + "\",\"max_tokens\":"
                + "512,\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1024},\"tools\":" + ANTHROPIC_TOOLS
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + ASK_TOOL + "\"}]}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().path("stop_reason").asText()).isEqualTo("tool_use");
        List<String> types = new ArrayList<>();
        for (JsonNode block : reply.json().path("content")) {
            types.add(block.path("type").asText());
            if (block.path("type").asText().equals("tool_use")) {
                assertThat(block.path("name").asText()).isEqualTo("get_weather");
                typedArguments(block.path("input").toString());
            }
        }
        assertThat(types).contains("tool_use");
        assertThat(types.contains("thinking")).isEqualTo(thinks);
        noMarkers(reply.body());
    }

    @ParameterizedTest
    @MethodSource("models")
    void ollamaChatCallsTheTool(String model, boolean thinks) throws Exception {
        TestServer.Reply reply = server.postForReply("/api/chat", "{\"model\":\"" + model + "\",\"stream\":false,"
                + "\"think\":true,\"tools\":" + OPENAI_TOOLS + ",\"messages\":[{\"role\":\"user\",\"content\":\""
                + ASK_TOOL + "\"}]}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode message = reply.json().path("message");
        JsonNode call = message.path("tool_calls").get(0);
        assertThat(call.path("function").path("name").asText()).isEqualTo("get_weather");
        typedArguments(call.path("function").path("arguments").toString());
        assertThat(message.path("thinking").asText("").isEmpty()).isEqualTo(!thinks);
        noMarkers(reply.body());
    }

    @ParameterizedTest
    @MethodSource("models")
    void responsesApiStreamsTheCallInPieces(String model, boolean thinks) throws Exception {
        TestServer.Reply reply = server.postForReply("/v1/responses", "{\"model\":\"" + model + "\",\"stream\":true,"
                + "\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\",\"parameters\":" + TOOL_SCHEMA
                + "}],\"input\":\"" + ASK_TOOL + "\"}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        List<ResponsesApiTest.Event> events = ResponsesApiTest.events(reply.body());
        List<String> callEvents = new ArrayList<>();
        StringBuilder arguments = new StringBuilder();
        String done = null;
        for (ResponsesApiTest.Event e : events) {
            boolean call = e.data().path("item").path("type").asText().equals("function_call")
                    || e.type().startsWith("response.function_call_arguments");
            if (call) {
                callEvents.add(e.type());
            }
            if (e.type().equals("response.function_call_arguments.delta")) {
                arguments.append(e.data().path("delta").asText());
            } else if (e.type().equals("response.function_call_arguments.done")) {
                done = e.data().path("arguments").asText();
            }
        }
        assertThat(callEvents.getFirst()).isEqualTo("response.output_item.added");
        assertThat(callEvents.subList(callEvents.size() - 2, callEvents.size()))
                .containsExactly("response.function_call_arguments.done", "response.output_item.done");
        assertThat(callEvents.stream().filter(t -> t.endsWith(".delta")).count()).as(reply.body()).isGreaterThan(2);
        assertThat(arguments.toString()).isEqualTo(done);
        typedArguments(done);
        noMarkers(reply.body());
    }

    @ParameterizedTest
    @MethodSource("models")
    void anthropicMessagesStreamTheToolUseInPieces(String model, boolean thinks) throws Exception {
        TestServer.Reply reply = server.postForReply("/v1/messages", "{\"model\":\"" + model + "\",\"max_tokens\":"
                + "512,\"stream\":true,\"tools\":" + ANTHROPIC_TOOLS + ",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"" + ASK_TOOL + "\"}]}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        List<AnthropicMessagesTest.Event> events = AnthropicMessagesTest.events(reply.body());
        int toolUse = -1;
        int pieces = 0;
        boolean stopped = false;
        StringBuilder input = new StringBuilder();
        for (AnthropicMessagesTest.Event e : events) {
            JsonNode data = e.data();
            if (e.name().equals("content_block_start") && data.at("/content_block/type").asText().equals("tool_use")) {
                assertThat(data.at("/content_block/name").asText()).isEqualTo("get_weather");
                toolUse = data.path("index").asInt();
            } else if (e.name().equals("content_block_delta") && data.path("index").asInt() == toolUse) {
                assertThat(stopped).isFalse();
                input.append(data.at("/delta/partial_json").asText());
                pieces++;
            } else if (e.name().equals("content_block_stop") && data.path("index").asInt() == toolUse) {
                stopped = true;
            }
        }
        assertThat(stopped).isTrue();
        assertThat(pieces).as(reply.body()).isGreaterThan(2);
        typedArguments(input.toString());
        noMarkers(reply.body());
    }
}
