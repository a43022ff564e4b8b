package io.rkllm.server.it;

import static io.rkllm.server.it.ChatCompletionsTest.quote;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.ffm.Abi;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runtime 1.3.0's FINISH at {@code </think>} (simulated faults {@code think_finish} and
 * {@code think_finish_even_with_template}): by default the server switches thinking through the chat template and
 * leaves {@code enable_thinking} off on 1.3, so answers are whole; where the flag is still used (forced, or a model
 * without a template) the broken answer is reported as such, logged, kept out of the KV cache, and the model
 * goes on serving. The same requests on 1.2 are unaffected.
 */
class ThinkFinishFaultTest {
    private static final String QWEN3 = "capabilities: {thinking: true}\nfamily: qwen3\n";
    /** A thinking model whose family the server has no chat template for: only the flag switches thinking. */
    private static final String NO_TEMPLATE = "capabilities: {thinking: true}\n";

    @TempDir
    Path dir;

    private TestServer server(Abi abi, String fault, String sidecar, Map<String, String> flags) {
        TestServer.Builder b = TestServer.in(dir).abi(abi)
                .model("m", Map.of("thinking", "1", "fault", fault)).sidecar("m", sidecar);
        flags.forEach(b::set);
        return b.start();
    }

    private static String conversation(String... turns) {
        StringBuilder s = new StringBuilder("{\"model\":\"m\",\"messages\":[");
        for (int i = 0; i < turns.length; i++) {
            s.append(i == 0 ? "" : ",").append("{\"role\":\"").append(i % 2 == 0 ? "user" : "assistant")
                    .append("\",\"content\":").append(quote(turns[i])).append('}');
        }
        return s.append("]}").toString();
    }

    private static String streaming(String body) {
        return body.substring(0, body.length() - 1) + ",\"stream\":true}";
    }

    @ParameterizedTest
    @CsvSource({"V1_3, think_finish", "V1_3, think_finish_even_with_template", "V1_2, think_finish",
            "V1_2, think_finish_even_with_template"})
    void thinkingAnswersAreWholeByDefault(Abi abi, String fault) throws Exception {
        try (LogCapture log = LogCapture.server(); TestServer server = server(abi, fault, QWEN3, Map.of())) {
            TestServer.Reply first = server.postForReply("/v1/chat/completions", conversation("Why is the sky blue?"));
            assertThat(first.status()).as(first.body()).isEqualTo(200);
            JsonNode message = first.json().at("/choices/0/message");
            assertThat(message.get("reasoning_content").asText()).isNotBlank();
            assertThat(message.get("content").asText()).isNotBlank();
            assertThat(first.json().at("/choices/0/finish_reason").asText()).isEqualTo("stop");
            assertThat(first.header("X-RKLLM-Incomplete")).isNull();

            // the follow-up continues the cache: on 1.3.0 such a second run is reported to stop early
            String answer = message.get("content").asText();
            SseEvents events = SseEvents.parse(server.postForReply("/v1/chat/completions",
                    streaming(conversation("Why is the sky blue?", answer, "And at sunset?"))).body());
            List<JsonNode> chunks = events.assertValidChatStream(false);
            assertThat(events.reasoning(chunks)).isNotBlank();
            assertThat(events.content(chunks)).isNotBlank();
            assertThat(events.finishReason(chunks)).isEqualTo("stop");
            assertThat(events.comments()).isEmpty();

            List<JsonNode> runs = server.runs("m");
            assertThat(runs).hasSize(2);
            assertThat(runs.getLast().get("prompt").asText()).as("incremental").isEqualTo("And at sunset?");
            assertThat(runs).allSatisfy(r -> {
                assertThat(r.get("finish_reason").asText()).isEqualTo("eos");
                assertThat(r.get("output").asText()).contains("</think>");
                // thinking is switched by the template on 1.3; 1.2 keeps passing the flag as it always did
                assertThat(r.get("enable_thinking").asBoolean()).isEqualTo(abi == Abi.V1_2);
                assertThat(r.get("prefilled_text").asText()).endsWith("<|im_start|>assistant\n");
            });
            assertThat(log.warnings()).isEmpty();
        }
    }

    @Test
    void thinkingOffStillClosesTheThinkBlockInTheTemplate() throws Exception {
        try (TestServer server = server(Abi.V1_3, "think_finish_even_with_template", QWEN3, Map.of())) {
            JsonNode off = server.postForReply("/v1/chat/completions", conversation("/no_think Why?")).json();
            assertThat(off.at("/choices/0/message").has("reasoning_content")).isFalse();
            assertThat(off.at("/choices/0/message/content").asText()).isNotBlank();
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("enable_thinking").asBoolean()).isFalse();
            assertThat(run.get("prefilled_text").asText()).endsWith("<think>\n\n</think>\n\n");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aForcedFlagGivesABrokenAnswerThatIsReportedNotPresentedAsGood(Abi abi) throws Exception {
        Map<String, String> always = Map.of("runtime.thinking_flag", "always");
        try (LogCapture log = LogCapture.server();
             TestServer server = server(abi, "think_finish_even_with_template", QWEN3, always)) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", conversation("Why is the sky blue?"));
            JsonNode message = reply.json().at("/choices/0/message");
            assertThat(message.get("reasoning_content").asText()).isNotBlank();
            if (abi == Abi.V1_2) {
                assertThat(message.get("content").asText()).isNotBlank();
                assertThat(reply.json().at("/choices/0/finish_reason").asText()).isEqualTo("stop");
                assertThat(reply.header("X-RKLLM-Incomplete")).isNull();
                assertThat(log.warnings()).isEmpty();
                return;
            }
            assertThat(message.get("content").asText("")).isEmpty();
            assertThat(reply.json().at("/choices/0/finish_reason").asText()).isEqualTo("length");
            assertThat(reply.header("X-RKLLM-Incomplete")).contains("ended after its reasoning");
            assertThat(log.warningsContaining("the answer ended after its reasoning")).hasSize(1)
                    .allSatisfy(w -> assertThat(w).contains("model m").contains("enable_thinking=true"));
            assertThat(server.runs("m").getLast().get("finish_reason").asText()).isEqualTo("think_end");

            SseEvents events = SseEvents.parse(server.postForReply("/v1/chat/completions",
                    streaming(conversation("Why is the sky blue?"))).body());
            List<JsonNode> chunks = events.assertValidChatStream(false);
            assertThat(events.reasoning(chunks)).isNotBlank();
            assertThat(events.content(chunks)).isEmpty();
            assertThat(events.finishReason(chunks)).isEqualTo("length");
            // the headers left before the answer: the note comes as a comment line clients skip
            assertThat(events.comments()).anySatisfy(c -> assertThat(c).startsWith("X-RKLLM-Incomplete: the answer"));

            // the model keeps serving: the next turn (thinking off) does not continue the broken cache, which
            // 1.3.0 is reported to answer with a few words only, but resends the conversation on a cleared cache
            JsonNode next = server.postForReply("/v1/chat/completions",
                    conversation("Why is the sky blue?", "", "/no_think Say it in short.")).json();
            assertThat(next.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
            assertThat(next.at("/choices/0/message/content").asText()).isNotBlank();
            List<JsonNode> trace = server.trace("m");
            assertThat(trace.get(trace.size() - 2).get("call").asText()).isEqualTo("clear_kv_cache");
            JsonNode last = trace.getLast();
            assertThat(last.get("finish_reason").asText()).isEqualTo("eos");
            assertThat(last.get("generate_tokens").asInt()).isEqualTo(48);
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aModelWithoutATemplateKeepsTheFlagAndIsWarnedAbout(Abi abi) throws Exception {
        try (LogCapture log = LogCapture.server(); TestServer server = server(abi, "think_finish", NO_TEMPLATE,
                Map.of())) {
            for (int i = 0; i < 2; i++) {
                TestServer.Reply reply = server.postForReply("/v1/chat/completions", conversation("Why?"));
                String finish = reply.json().at("/choices/0/finish_reason").asText();
                assertThat(finish).isEqualTo(abi == Abi.V1_3 ? "length" : "stop");
                assertThat(reply.json().at("/choices/0/message/content").asText("").isBlank())
                        .isEqualTo(abi == Abi.V1_3);
            }
            assertThat(server.runs("m")).allSatisfy(r -> assertThat(r.get("enable_thinking").asBoolean()).isTrue());
            assertThat(log.warningsContaining("thinks through runtime 1.3.0's enable_thinking flag"))
                    .hasSize(abi == Abi.V1_3 ? 1 : 0);
            assertThat(log.warningsContaining("the answer ended after its reasoning")).hasSize(abi == Abi.V1_3 ? 2 : 0);
        }
    }
}
