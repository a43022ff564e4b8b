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

/**
 * Failures after the request was accepted: a runtime ERROR mid-answer, and the watchdogs
 * (first token, silence, total). Each ends as one clear error, aborts the native run, and leaves
 * the model serving the next request.
 */
class RuntimeFailureTest {
    @TempDir
    Path dir;

    static String chat(String content, boolean stream) {
        return QueueTest.chat(content, stream);
    }

    /** Exactly one error event, as the last event, and no [DONE]; returns the error object. */
    static JsonNode assertStreamEndsWithOneError(TestServer.Reply reply) {
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.header("Content-Type")).startsWith("text/event-stream");
        SseEvents events = SseEvents.parse(reply.body());
        assertThat(events.data()).noneMatch("[DONE]"::equals);
        List<JsonNode> chunks = events.chunks();
        assertThat(chunks.getFirst().at("/choices/0/delta/role").asText()).isEqualTo("assistant");
        List<JsonNode> errors = chunks.stream().filter(c -> c.has("error")).toList();
        assertThat(errors).hasSize(1);
        assertThat(chunks.getLast()).isSameAs(errors.getFirst());
        assertThat(chunks.getLast().size()).as("only the error object").isEqualTo(1);
        JsonNode error = errors.getFirst().get("error");
        assertThat(error.get("message").asText()).isNotBlank();
        assertThat(error.get("type").asText()).isNotBlank();
        assertThat(error.has("param")).isTrue();
        assertThat(error.has("code")).isTrue();
        assertThat(chunks.stream().filter(c -> c.at("/choices/0/finish_reason").isTextual())).isEmpty();
        return error;
    }

    static void assertServesNext(TestServer server) throws Exception {
        TestServer.Reply ok = server.postForReply("/v1/chat/completions", chat("[[say:ok]]", false));
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        assertThat(ok.json().at("/choices/0/message/content").asText()).isEqualTo("ok");
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aRuntimeErrorMidStreamIsOneErrorEventThenTheEndAnd500WhenNotStreaming(Abi abi) throws Exception {
        try (TestServer server = TestServer.in(dir).abi(abi).model("m", Map.of("fault", "error_after=3")).start()) {
            TestServer.Reply streamed = server.postForReply("/v1/chat/completions", chat("[[tokens:20]]", true));
            SseEvents events = SseEvents.parse(streamed.body());
            assertThat(events.content(events.chunks())).as("the 3 tokens before the error were sent").isNotEmpty();
            JsonNode error = assertStreamEndsWithOneError(streamed);
            assertThat(error.get("code").asText()).isEqualTo("runtime_error");
            assertThat(server.runs("m").getLast().get("result").asText()).isEqualTo("error");
            assertServesNext(server);

            TestServer.Reply plain = server.postForReply("/v1/chat/completions", chat("[[tokens:20]]", false));
            ChatCompletionsTest.assertError(plain, 500, "runtime_error");
            assertThat(plain.json().at("/error/type").asText()).isEqualTo("server_error");
            assertServesNext(server);
            assertThat(server.runs("m")).extracting(r -> r.get("result").asText())
                    .containsExactly("error", "finish", "error", "finish");
        }
    }

    @Test
    void aModelThatNeverProducesATokenIsAbortedByTheFirstTokenTimeout() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("fault", "hang"))
                .set("timeouts.first_token", "300ms").set("queue.keep_alive", "100ms").start()) {
            long t0 = System.nanoTime();
            TestServer.Reply plain = server.postForReply("/v1/chat/completions", chat("hello", false));
            assertThat((System.nanoTime() - t0) / 1_000_000).as("not before the timeout").isGreaterThanOrEqualTo(250L);
            ChatCompletionsTest.assertError(plain, 504, "generation_timeout");
            assertThat(plain.json().at("/error/message").asText()).contains("timeouts.first_token");
            assertThat(server.runs("m").getLast().get("result").asText()).isEqualTo("abort");
            assertThat(server.runs("m").getLast().get("generate_tokens").asInt()).isZero();

            JsonNode error = assertStreamEndsWithOneError(server.postForReply("/v1/chat/completions",
                    chat("hello", true)));
            assertThat(error.get("code").asText()).isEqualTo("generation_timeout");
            // every run hangs under this fault: that the second one reached the runtime and was aborted
            // too shows the first timeout left the worker free (theModelStaysUsable... checks a normal answer)
            assertThat(server.runs("m")).hasSize(2).allMatch(r -> r.get("result").asText().equals("abort"));
        }
    }

    @Test
    void theModelStaysUsableAfterAFirstTokenTimeout() throws Exception {
        // a prefill 20 times slower than usual: 4000 tokens/s become 200 per second, so [[tokens:]] of a
        // long prompt misses a short first-token deadline while a short prompt makes it
        String longPrompt = "word ".repeat(400) + "[[say:late]]";
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                "prefill_tps", "4000", "decode_tps", "1000", "fault", "slow_prefill=20"))
                .set("timeouts.first_token", "500ms").set("queue.keep_alive", "100ms").start()) {
            TestServer.Reply slow = server.postForReply("/v1/chat/completions", chat(longPrompt, false));
            ChatCompletionsTest.assertError(slow, 504, "generation_timeout");
            JsonNode aborted = server.runs("m").getLast();
            assertThat(aborted.get("result").asText()).isEqualTo("abort");
            assertThat(aborted.get("prefill_tokens").asInt()).as("aborted during prefill").isZero();
            assertServesNext(server);
        }
    }

    @Test
    void aModelThatFallsSilentIsAbortedByTheSilenceTimeout() throws Exception {
        // 2 tokens/s: the first token after 500 ms (within first_token), then 500 ms of silence > 200 ms
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                "decode_tps", "2", "prefill_tps", "100000"))
                .set("timeouts.first_token", "5s").set("timeouts.silence", "200ms")
                .set("queue.keep_alive", "100ms").start()) {
            TestServer.Reply plain = server.postForReply("/v1/chat/completions", chat("[[tokens:50]]", false));
            ChatCompletionsTest.assertError(plain, 504, "generation_timeout");
            assertThat(plain.json().at("/error/message").asText()).contains("timeouts.silence");
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("result").asText()).isEqualTo("abort");
            assertThat(run.get("generate_tokens").asInt()).isBetween(1, 3);

            JsonNode error = assertStreamEndsWithOneError(server.postForReply("/v1/chat/completions",
                    chat("[[tokens:50]]", true)));
            assertThat(error.get("message").asText()).contains("timeouts.silence");
            assertThat(server.runs("m").getLast().get("result").asText()).isEqualTo("abort");
        }
    }

    @Test
    void aGenerationThatRunsTooLongIsAbortedByTheTotalTimeoutEvenWhileTokensFlow() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                "decode_tps", "50", "prefill_tps", "100000"))
                .set("timeouts.total", "400ms").set("queue.keep_alive", "100ms").start()) {
            long t0 = System.nanoTime();
            TestServer.Reply plain = server.postForReply("/v1/chat/completions", chat("[[tokens:2000]]", false));
            assertThat((System.nanoTime() - t0) / 1_000_000).as("not before the timeout").isGreaterThanOrEqualTo(350L);
            ChatCompletionsTest.assertError(plain, 504, "generation_timeout");
            assertThat(plain.json().at("/error/message").asText()).contains("timeouts.total");
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("result").asText()).isEqualTo("abort");
            assertThat(run.get("generate_tokens").asInt()).isBetween(5, 40);

            TestServer.Reply streamed = server.postForReply("/v1/chat/completions", chat("[[tokens:2000]]", true));
            JsonNode error = assertStreamEndsWithOneError(streamed);
            assertThat(error.get("message").asText()).contains("timeouts.total");
            SseEvents events = SseEvents.parse(streamed.body());
            assertThat(events.content(events.chunks())).isNotEmpty();
            assertThat(server.runs("m").getLast().get("generate_tokens").asInt()).isBetween(5, 40);
            assertServesNext(server);
        }
    }
}
