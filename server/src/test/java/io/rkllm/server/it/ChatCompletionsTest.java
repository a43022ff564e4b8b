package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.ffm.Abi;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** /v1/chat/completions against a real server on the simulated runtime, both ABIs. */
class ChatCompletionsTest {
    @TempDir
    Path dir;

    static String chat(String content, String extra) {
        return "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":" + quote(content) + "}]"
                + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    static String quote(String s) {
        try {
            return TestServer.JSON.writeValueAsString(s);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void nonStreamingAnswerWithExactUsageFromTheRuntime(Abi abi) throws Exception {
        try (TestServer server = TestServer.in(dir).abi(abi).model("m", Map.of()).start()) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("[[say:Hello, wörld 日本!]]", ""));
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.header("Content-Type")).startsWith("application/json");
            assertThat(reply.header("x-request-id")).isNotBlank();
            JsonNode body = reply.json();
            assertThat(body.get("object").asText()).isEqualTo("chat.completion");
            assertThat(body.get("id").asText()).startsWith("chatcmpl-");
            assertThat(body.get("created").isIntegralNumber()).isTrue();
            assertThat(body.at("/choices/0/message/role").asText()).isEqualTo("assistant");
            assertThat(body.at("/choices/0/message/content").asText()).isEqualTo("Hello, wörld 日本!");
            assertThat(body.at("/choices/0/message").has("tool_calls")).isFalse();
            assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
            JsonNode run = server.runs("m").getLast();
            JsonNode usage = body.get("usage");
            assertThat(usage.get("prompt_tokens").asInt()).isEqualTo(run.get("prefill_tokens").asInt());
            assertThat(usage.get("completion_tokens").asInt()).isEqualTo(run.get("generate_tokens").asInt());
            assertThat(usage.get("total_tokens").asInt()).isEqualTo(
                    usage.get("prompt_tokens").asInt() + usage.get("completion_tokens").asInt());
            assertThat(usage.at("/prompt_tokens_details/cached_tokens").asInt()).isZero();
            assertThat(body.at("/timings/prompt_n").asInt()).isEqualTo(run.get("prefill_tokens").asInt());
            assertThat(body.at("/timings/predicted_n").asInt()).isEqualTo(usage.get("completion_tokens").asInt());
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void anAnswerItsLimitEndsInsideACharacterEndsBeforeIt(Abi abi) throws Exception {
        // 3-byte tokens: "ab" and 日's first byte, then the rest of 日 and 本's first byte
        try (TestServer server = TestServer.in(dir).abi(abi).model("m", Map.of()).start()) {
            String body = "{\"model\":\"m\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":"
                    + "\"[[say:ab日本]]\"}]";
            JsonNode answer = server.postForReply("/v1/chat/completions", body + "}").json();
            assertThat(answer.at("/choices/0/message/content").asText()).isEqualTo("ab日");
            assertThat(answer.at("/choices/0/finish_reason").asText()).isEqualTo("length");
            String stream = server.postForReply("/v1/chat/completions", body + ",\"stream\":true}").body();
            assertThat(stream).doesNotContain("\uFFFD").doesNotContain("\\ufffd");
            assertThat(stream).contains("日");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void streamingFollowsEverySseInvariantAndMatchesTheNonStreamingText(Abi abi) throws Exception {
        try (TestServer server = TestServer.in(dir).abi(abi).model("m", Map.of()).start()) {
            String prompt = "Tell me something";
            // the simulated answer depends on the prompt and the KV cache's size: after a first run of the
            // prompt, every repeat starts from the same cache (the kept system prompt)
            server.postForReply("/v1/chat/completions", chat(prompt, ""));
            String plain = server.postForReply("/v1/chat/completions", chat(prompt, "")).json()
                    .at("/choices/0/message/content").asText();
            TestServer.Reply streamed = server.postForReply("/v1/chat/completions",
                    chat(prompt, "\"stream\":true,\"stream_options\":{\"include_usage\":true}"));
            assertThat(streamed.status()).isEqualTo(200);
            assertThat(streamed.header("Content-Type")).startsWith("text/event-stream");
            assertThat(streamed.header("Cache-Control")).isEqualTo("no-cache");
            assertThat(streamed.header("X-Accel-Buffering")).isEqualTo("no");
            assertThat(streamed.header("Content-Encoding")).isNull();
            SseEvents events = SseEvents.parse(streamed.body());
            List<JsonNode> chunks = events.assertValidChatStream(true);
            assertThat(events.content(chunks)).isEqualTo(plain).isNotEmpty();
            assertThat(events.finishReason(chunks)).isEqualTo("stop");
            JsonNode usage = chunks.getLast().get("usage");
            assertThat(usage.get("completion_tokens").asInt()).isEqualTo(server.runs("m").getLast()
                    .get("generate_tokens").asInt());
            // compact single-line JSON: the raw chunk equals its re-serialised compact form
            String firstData = events.data().get(1);
            assertThat(firstData).isEqualTo(TestServer.JSON.writeValueAsString(TestServer.JSON.readTree(firstData)));
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void stopStringsSplitAcrossTokensNeverLeakAndAbortTheRun(Abi abi) throws Exception {
        // real time at 200 tokens/s, so the abort at the match lands long before the text runs out
        try (TestServer server = TestServer.in(dir).abi(abi).model("m", Map.of("time_scale", "1", "init_ms", "0",
                "decode_tps", "200", "prefill_tps", "100000")).start()) {
            // the simulated runtime emits [[say:]] text in 3-byte tokens: "END" straddles two of them
            String text = "[[say:alpha bENDeta gamma delta epsilon" + " and so on".repeat(60) + "]]";
            JsonNode body = server.postForReply("/v1/chat/completions", chat(text, "\"stop\":[\"xyz\",\"END\"]")).json();
            assertThat(body.at("/choices/0/message/content").asText()).isEqualTo("alpha b");
            assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("result").asText()).isEqualTo("abort");
            assertThat(run.get("generate_tokens").asInt()).isLessThan(100);

            SseEvents events = SseEvents.parse(server.postForReply("/v1/chat/completions",
                    chat(text, "\"stop\":\"END\",\"stream\":true")).body());
            List<JsonNode> chunks = events.assertValidChatStream(false);
            assertThat(events.content(chunks)).isEqualTo("alpha b");
            assertThat(events.raw()).doesNotContain("END");
            assertThat(events.finishReason(chunks)).isEqualTo("stop");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void maxTokensIsHonouredOnBothAbisWithFinishReasonLength(Abi abi) throws Exception {
        try (TestServer server = TestServer.in(dir).abi(abi).model("m", Map.of()).start()) {
            JsonNode body = server.postForReply("/v1/chat/completions",
                    chat("[[tokens:60]]", "\"max_tokens\":7")).json();
            assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("length");
            assertThat(body.at("/usage/completion_tokens").asInt()).isEqualTo(7);
            JsonNode run = server.runs("m").getLast();
            if (abi == Abi.V1_3) {
                assertThat(run.get("max_new_tokens").asInt()).isEqualTo(7);
                assertThat(run.get("generate_tokens").asInt()).isEqualTo(7);
            } else {
                assertThat(run.get("result").asText()).isEqualTo("abort");
            }
            JsonNode unlimited = server.postForReply("/v1/chat/completions",
                    chat("[[tokens:12]]", "\"max_completion_tokens\":50,\"max_tokens\":3")).json();
            assertThat(unlimited.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
            assertThat(unlimited.at("/usage/completion_tokens").asInt()).isEqualTo(12);
        }
    }

    @Test
    void thinkBlocksBecomeReasoningContentInBothModes() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("thinking", "1"))
                .sidecar("m", "capabilities: {thinking: true}\nfamily: qwen3\n").start()) {
            String text = "[[say:<think>\nweigh it up\n</think>\n\nThe answer is 42.]]";
            JsonNode body = server.postForReply("/v1/chat/completions", chat(text, "")).json();
            assertThat(body.at("/choices/0/message/content").asText()).isEqualTo("The answer is 42.");
            assertThat(body.at("/choices/0/message/reasoning_content").asText()).isEqualTo("weigh it up\n");
            SseEvents events = SseEvents.parse(server.postForReply("/v1/chat/completions",
                    chat(text, "\"stream\":true")).body());
            List<JsonNode> chunks = events.assertValidChatStream(false);
            assertThat(events.content(chunks)).isEqualTo("The answer is 42.");
            assertThat(events.reasoning(chunks)).isEqualTo("weigh it up\n");
            assertThat(events.raw()).doesNotContain("<think>").doesNotContain("</think>");
        }
    }

    @Test
    void thinkingIsSwitchedOffPerRequestAndByNoThinkPrefix() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("thinking", "1"))
                .sidecar("m", "capabilities: {thinking: true}\nfamily: qwen3\n").start()) {
            JsonNode thinking = server.postForReply("/v1/chat/completions", chat("Why?", "")).json();
            assertThat(thinking.at("/choices/0/message/reasoning_content").asText()).isNotEmpty();
            JsonNode off = server.postForReply("/v1/chat/completions", chat("Why?", "\"reasoning_effort\":\"none\""))
                    .json();
            assertThat(off.at("/choices/0/message").has("reasoning_content")).isFalse();
            JsonNode kwargs = server.postForReply("/v1/chat/completions",
                    chat("Why?", "\"chat_template_kwargs\":{\"enable_thinking\":false}")).json();
            assertThat(kwargs.at("/choices/0/message").has("reasoning_content")).isFalse();
            JsonNode prefix = server.postForReply("/v1/chat/completions", chat("/no_think Why?", "")).json();
            assertThat(prefix.at("/choices/0/message").has("reasoning_content")).isFalse();
            JsonNode last = server.runs("m").getLast();
            assertThat(last.get("prompt").asText()).isEqualTo("Why?");
            assertThat(last.get("prefilled_text").asText()).endsWith("<think>\n\n</think>\n\n");
        }
    }

    @Test
    void toolCallsAreParsedFromTheOutputInBothModes() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).sidecar("m", "capabilities: {tools: true}\n")
                .start()) {
            String tools = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
                    + "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}]";
            String text = "[[say:<tool_call>\\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\\n"
                    + "</tool_call>]]";
            JsonNode body = server.postForReply("/v1/chat/completions", chat(text, tools)).json();
            assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("tool_calls");
            JsonNode call = body.at("/choices/0/message/tool_calls/0");
            assertThat(call.get("id").asText()).startsWith("call_");
            assertThat(call.get("type").asText()).isEqualTo("function");
            assertThat(call.at("/function/name").asText()).isEqualTo("get_weather");
            assertThat(TestServer.JSON.readTree(call.at("/function/arguments").asText()).get("city").asText())
                    .isEqualTo("Paris");
            assertThat(body.at("/choices/0/message/content").isNull()).isTrue();

            SseEvents events = SseEvents.parse(server.postForReply("/v1/chat/completions",
                    chat(text, tools + ",\"stream\":true")).body());
            List<JsonNode> chunks = events.assertValidChatStream(false);
            JsonNode head = chunks.stream().filter(c -> c.at("/choices/0/delta/tool_calls/0/id").isTextual())
                    .findFirst().orElseThrow().at("/choices/0/delta/tool_calls/0");
            assertThat(head.get("index").asInt()).isZero();
            assertThat(head.at("/function/name").asText()).isEqualTo("get_weather");
            StringBuilder args = new StringBuilder();
            chunks.forEach(c -> args.append(c.at("/choices/0/delta/tool_calls/0/function/arguments").asText("")));
            assertThat(TestServer.JSON.readTree(args.toString()).get("city").asText()).isEqualTo("Paris");
            assertThat(events.finishReason(chunks)).isEqualTo("tool_calls");
            assertThat(server.trace("m").stream().anyMatch(t -> t.path("call").asText().equals("set_function_tools")))
                    .isTrue();
        }
    }

    @Test
    void toolResultsGoToTheRuntimeWithRoleToolOnTopOfTheCachedCall() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).sidecar("m", "family: qwen2.5\n"
                + "capabilities: {tools: true}\n").start()) {
            String tools = "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
                    + "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}]";
            String first = "{\"model\":\"m\",\"tools\":" + tools + ",\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"What does get_weather say for Paris?\"}]}";
            JsonNode call = server.postForReply("/v1/chat/completions", first).json();
            JsonNode toolCall = call.at("/choices/0/message/tool_calls/0");
            assertThat(toolCall.at("/function/name").asText()).isEqualTo("get_weather");
            String second = "{\"model\":\"m\",\"tools\":" + tools + ",\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"What does get_weather say for Paris?\"},{\"role\":\"assistant\",\"content\":null,"
                    + "\"tool_calls\":[" + toolCall + "]},{\"role\":\"tool\",\"tool_call_id\":" + toolCall.get("id")
                    + ",\"content\":\"{\\\"temp\\\": 21}\"}]}";
            TestServer.Reply answer = server.postForReply("/v1/chat/completions", second);
            assertThat(answer.status()).as(answer.body()).isEqualTo(200);
            JsonNode run = server.runs("m").get(1);
            assertThat(run.get("role").asText()).isEqualTo("tool");
            assertThat(run.get("prompt").asText()).isEqualTo("{\"temp\": 21}");
            assertThat(run.get("keep_history").asInt()).isEqualTo(1);
            assertThat(answer.json().at("/choices/0/message/content").asText()).isNotEmpty();
        }
    }

    @Test
    void clientErrorsAreOpenAiShaped4xxBeforeAnythingIsStreamed() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("max_context_limit", "256"))
                .sidecar("m", "context_length: 256\n").start()) {
            assertError(server.postForReply("/v1/chat/completions", "{\"model\":\"nope\",\"messages\":"
                    + "[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}"), 404, "model_not_found");
            assertError(server.postForReply("/v1/chat/completions", "{\"model\":"), 400, null);
            assertError(server.postForReply("/v1/chat/completions", chat("hi", "\"n\":2")), 400, null);
            assertError(server.postForReply("/v1/chat/completions", chat("hi", "\"temperature\":\"hot\"")), 400, null);
            assertError(server.postForReply("/v1/chat/completions", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
                    + "\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}}]}]}"), 400, null);
            TestServer.Reply tooLong = server.postForReply("/v1/chat/completions",
                    chat("word ".repeat(600), "\"stream\":true"));
            assertError(tooLong, 400, "context_length_exceeded");
            assertThat(tooLong.json().at("/error/n_ctx").asInt()).isEqualTo(256);
            assertThat(tooLong.json().at("/error/param").asText()).isEqualTo("messages");
            // each route names its own field: a raw prompt's, the Responses API's input
            TestServer.Reply rawTooLong = server.postForReply("/v1/completions", "{\"model\":\"m\",\"prompt\":\""
                    + "word ".repeat(600) + "\"}");
            assertError(rawTooLong, 400, "context_length_exceeded");
            assertThat(rawTooLong.json().at("/error/param").asText()).isEqualTo("prompt");
            assertThat(rawTooLong.json().at("/error/message").asText()).doesNotContain("earlier turns");
            TestServer.Reply inputTooLong = server.postForReply("/v1/responses", "{\"model\":\"m\",\"input\":\""
                    + "word ".repeat(600) + "\"}");
            assertError(inputTooLong, 400, "context_length_exceeded");
            assertThat(inputTooLong.json().at("/error/param").asText()).isEqualTo("input");
            TestServer.Reply noReranker = server.postForReply("/v1/rerank", "{\"query\":\"q\",\"documents\":[\"d\"]}");
            assertError(noReranker, 400, "model_not_supported");
            assertThat(noReranker.json().at("/error/message").asText()).startsWith("No reranker is installed");
            assertThat(server.runs("m")).isEmpty();
        }
    }

    static void assertError(TestServer.Reply reply, int status, String code) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(status);
        assertThat(reply.header("Content-Type")).startsWith("application/json");
        JsonNode error = reply.json().get("error");
        assertThat(error.get("message").asText()).isNotBlank();
        assertThat(error.get("type").asText()).isNotBlank();
        assertThat(error.has("param")).isTrue();
        assertThat(error.has("code")).isTrue();
        if (code != null) {
            assertThat(error.get("code").asText()).isEqualTo(code);
        }
    }
}
