package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-model FIFO queue: a full queue answers 429 at once, a request that waits too long gets
 * 503 (or an SSE error event once its stream has started, after keep-alive comments), and queued
 * requests run in arrival order.
 */
class QueueTest {
    private static final Map<String, String> SLOW = Map.of("time_scale", "1", "init_ms", "0", "decode_tps", "50",
            "prefill_tps", "100000");

    @TempDir
    Path dir;

    static String chat(String content, boolean stream) {
        return "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":" + ChatCompletionsTest.quote(content)
                + "}]" + (stream ? ",\"stream\":true" : "") + "}";
    }

    /** A streaming request that is being generated (its first tokens arrived); closing it ends the run. */
    static RawHttp running(TestServer server, String content) throws Exception {
        RawHttp http = RawHttp.post(server.port(), "/v1/chat/completions", chat(content, true));
        assertThat(http.readUntil("\"content\":", 2)).isTrue();
        return http;
    }

    /** A streaming request that was accepted: the 200 and the role chunk are sent once it is queued. */
    static RawHttp queued(TestServer server, String content) throws Exception {
        RawHttp http = RawHttp.post(server.port(), "/v1/chat/completions", chat(content, true));
        assertThat(http.readUntil("\"role\":\"assistant\"", 1)).isTrue();
        return http;
    }

    @Test
    void aFullQueueAnswers429WithRetryAfterInBothModes() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", SLOW).set("queue.max_waiting", "1").start();
             RawHttp first = running(server, "[[tokens:2000]]");
             RawHttp second = queued(server, "[[say:second]]")) {
            for (boolean stream : new boolean[] {false, true}) {
                TestServer.Reply third = server.postForReply("/v1/chat/completions", chat("[[say:third]]", stream));
                ChatCompletionsTest.assertError(third, 429, "queue_full");
                assertThat(third.json().at("/error/type").asText()).isEqualTo("rate_limit_error");
                assertThat(third.json().at("/error/message").asText()).contains("retry later");
                assertThat(Integer.parseInt(third.header("Retry-After"))).isPositive();
            }
            assertThat(ClientDisconnectTest.health(server).at("/loaded_models/0/queued").asInt()).isEqualTo(1);
        }
    }

    @Test
    void aRequestThatWaitsTooLongGets503JsonWhenNotStreaming() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", SLOW).set("queue.wait_timeout", "300ms")
                .set("queue.keep_alive", "100ms").start();
             RawHttp first = running(server, "[[tokens:2000]]")) {
            long t0 = System.nanoTime();
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("[[say:late]]", false));
            long waited = (System.nanoTime() - t0) / 1_000_000;
            ChatCompletionsTest.assertError(reply, 503, "queue_timeout");
            assertThat(reply.header("Retry-After")).isNotNull();
            assertThat(waited).as("not before the wait timeout").isGreaterThanOrEqualTo(250L);
            assertThat(ClientDisconnectTest.health(server).at("/loaded_models/0/queued").asInt()).isZero();
        }
    }

    @Test
    void aStreamThatWaitsTooLongGetsKeepAlivesThenOneErrorEventAndNoDone() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", SLOW).set("queue.wait_timeout", "500ms")
                .set("queue.keep_alive", "50ms").start();
             RawHttp first = running(server, "[[tokens:2000]]")) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("[[say:late]]", true));
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.header("Content-Type")).startsWith("text/event-stream");
            SseEvents events = SseEvents.parse(reply.body());
            assertThat(events.raw()).contains(": keep-alive\n\n");
            assertThat(events.keepAlives()).isGreaterThanOrEqualTo(3);
            assertThat(events.data()).noneMatch("[DONE]"::equals);
            List<JsonNode> chunks = events.chunks();
            assertThat(chunks.getFirst().at("/choices/0/delta/role").asText()).isEqualTo("assistant");
            JsonNode last = chunks.getLast();
            assertThat(chunks.stream().filter(c -> c.has("error"))).containsExactly(last);
            assertThat(last.at("/error/code").asText()).isEqualTo("queue_timeout");
            assertThat(last.at("/error/message").asText()).isNotBlank();
            assertThat(last.at("/error/type").asText()).isEqualTo("server_error");
        }
    }

    @Test
    void queuedRequestsRunInArrivalOrder() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", SLOW).start()) {
            List<RawHttp> waiting = new ArrayList<>();
            try (RawHttp first = running(server, "[[tokens:2000]]")) {
                for (String name : List.of("d", "b", "e", "a", "c")) {
                    waiting.add(queued(server, "[[say:" + name + "]]"));
                }
                assertThat(ClientDisconnectTest.health(server).at("/loaded_models/0/queued").asInt()).isEqualTo(5);
            } // the blocker goes away: its run is aborted and the queue drains
            for (RawHttp http : waiting) {
                assertThat(http.readUntil("data: [DONE]", 1)).isTrue();
                http.close();
            }
            assertThat(server.runs("m")).extracting(r -> r.get("prompt").asText())
                    .containsExactly("[[tokens:2000]]", "[[say:d]]", "[[say:b]]", "[[say:e]]", "[[say:a]]", "[[say:c]]");
        }
    }
}
