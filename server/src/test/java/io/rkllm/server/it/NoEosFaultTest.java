package io.rkllm.server.it;

import static io.rkllm.server.it.ChatCompletionsTest.chat;
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

/**
 * Runtime 1.3.0's wrong EOS id (simulated fault {@code no_eos}: the answer, then the end-of-turn marker the runtime
 * does not stop at, then more answers to the token limit). On 1.3 the server ends the answer where the runtime went
 * past the marker; without that guard the run is reported as {@code length}. Either way the model is named once in
 * the log with the cause and the fix, and keeps serving. The same requests on 1.2 are unaffected.
 */
class NoEosFaultTest {
    private static final Map<String, String> NO_EOS = Map.of("reply_tokens", "10", "fault", "no_eos");

    @TempDir
    Path dir;

    private TestServer server(Abi abi, String name, Map<String, String> flags) {
        TestServer.Builder b = TestServer.in(dir.resolve(name)).abi(abi).model("m", NO_EOS)
                .sidecar("m", "context_length: 1024\n");
        flags.forEach(b::set);
        return b.start();
    }

    @Test
    void onRuntime13TheAnswerEndsAtItsEndOfTurnAsOn12() throws Exception {
        String answerOn12;
        try (TestServer server = server(Abi.V1_2, "v12", Map.of())) {
            JsonNode body = server.postForReply("/v1/chat/completions", chat("Hello", "\"max_tokens\":100")).json();
            answerOn12 = body.at("/choices/0/message/content").asText();
            assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
            assertThat(body.at("/usage/completion_tokens").asInt()).isEqualTo(10);
        }
        try (LogCapture log = LogCapture.server(); TestServer server = server(Abi.V1_3, "v13", Map.of())) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("Hello", "\"max_tokens\":100"));
            JsonNode body = reply.json();
            assertThat(body.at("/choices/0/message/content").asText()).isEqualTo(answerOn12);
            assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
            // the answer, the marker the runtime did not stop at, and the token after it that revealed it
            assertThat(body.at("/usage/completion_tokens").asInt()).isEqualTo(12);
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("result").asText()).isEqualTo("abort");
            assertThat(run.get("generate_tokens").asInt()).isEqualTo(12);


            // the cache holds a whole turn: the follow-up sends only its new message
            String followUp = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"},"
                    + "{\"role\":\"assistant\",\"content\":" + ChatCompletionsTest.quote(answerOn12) + "},"
                    + "{\"role\":\"user\",\"content\":\"More?\"}]}";
            JsonNode next = server.postForReply("/v1/chat/completions", followUp).json();
            assertThat(next.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
            assertThat(next.at("/choices/0/message/content").asText()).isNotBlank();
            JsonNode last = server.runs("m").getLast();
            assertThat(last.get("prompt").asText()).isEqualTo("More?");
            assertThat(last.get("cache_before").asInt()).isEqualTo(server.runs("m").get(0).get("cache_after").asInt());

            SseEvents events = SseEvents.parse(server.postForReply("/v1/chat/completions",
                    chat("Hi", "\"stream\":true")).body());
            List<JsonNode> chunks = events.assertValidChatStream(false);
            // the next "turn" the runtime went on with starts on a new line: none of it was sent
            assertThat(events.content(chunks)).isNotBlank().doesNotContain("\n");
            assertThat(events.finishReason(chunks)).isEqualTo("stop");

            assertThat(log.warnings()).hasSize(1).first().asString().contains("model m")
                    .contains("did not recognise the model's EOS").contains("rkllm-toolkit 1.3.0")
                    .contains("rknn-llm#534");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void withoutTheGuardTheRunGoesToTheLimitAndIsReportedAsLength(Abi abi) throws Exception {
        try (LogCapture log = LogCapture.server();
             TestServer server = server(abi, abi.name(), Map.of("runtime.eos_guard", "off"))) {
            for (int i = 1; i <= EOS_STREAK; i++) {
                // a short limit is reached by healthy answers too: it says nothing about the EOS
                server.postForReply("/v1/chat/completions", chat("Short " + i, "\"max_tokens\":16"));
            }
            assertThat(log.warningsContaining("its EOS may never fire")).isEmpty();
            for (int i = 1; i <= EOS_STREAK + 1; i++) {
                JsonNode body = server.postForReply("/v1/chat/completions", chat("Hello " + i, "\"max_tokens\":300"))
                        .json();
                assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo(abi == Abi.V1_3 ? "length" : "stop");
                assertThat(body.at("/usage/completion_tokens").asInt()).isEqualTo(abi == Abi.V1_3 ? 300 : 10);
                List<String> warned = log.warningsContaining("its EOS may never fire");
                assertThat(warned).hasSize(abi == Abi.V1_3 && i >= EOS_STREAK ? 1 : 0);
            }
            assertThat(log.warnings()).hasSize(abi == Abi.V1_3 ? 1 : 0);
            if (abi == Abi.V1_3) {
                assertThat(log.warnings().getFirst()).contains("model m").contains("3 answers in a row")
                        .contains("re-convert the model with rkllm-toolkit 1.3.0");
            }
        }
    }

    @Test
    void anAnswerWithoutALimitFillsTheContextAndIsReportedAtOnce() throws Exception {
        try (LogCapture log = LogCapture.server();
             TestServer server = server(Abi.V1_3, "ctx", Map.of("runtime.eos_guard", "off"))) {
            JsonNode body = server.postForReply("/v1/chat/completions", chat("Hello", "")).json();
            assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("length");
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("finish_reason").asText()).isEqualTo("max_context");
            assertThat(run.get("cache_after").asInt()).isEqualTo(1024);
            assertThat(log.warningsContaining("an answer ran to the end of the context")).hasSize(1);
            // and the model serves the next request
            TestServer.Reply next = server.postForReply("/v1/chat/completions", chat("[[say:ok]]", "\"max_tokens\":1"));
            assertThat(next.json().at("/choices/0/message/content").asText()).isEqualTo("ok");
        }
    }

    private static final int EOS_STREAK = 3;
}
