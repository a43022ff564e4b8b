package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that closes its connection mid-answer (Open WebUI's Stop button) gets its generation
 * aborted promptly, streaming or not, and the model serves the next request normally.
 */
class ClientDisconnectTest {
    /** Real time: 50 tokens/s, so a 2000-token answer would take 40 s. */
    private static final Map<String, String> SLOW = Map.of("time_scale", "1", "init_ms", "0", "decode_tps", "50",
            "prefill_tps", "100000", "trace_run_start", "1");
    private static final String LONG = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"[[tokens:2000]]\"}]";

    @TempDir
    Path dir;

    @Test
    void closingAStreamAbortsTheRunWithinAboutOneTokenAndTheNextRequestIsServed() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", SLOW).start()) {
            try (RawHttp http = RawHttp.post(server.port(), "/v1/chat/completions", LONG + ",\"stream\":true}")) {
                assertThat(http.readUntil("\"content\":", 6)).isTrue(); // the role chunk and 5 content chunks
                assertThat(http.text()).startsWith("HTTP/1.1 200");
            }
            JsonNode run = awaitRun(server);
            assertThat(run.get("result").asText()).isEqualTo("abort");
            // 5 tokens were read; the abort lands at the next write or two, not 2000 tokens later (the simulated
            // NPU keeps its pace while a loaded machine may keep the server's threads waiting: up to 2 s of tokens)
            assertThat(run.get("generate_tokens").asInt()).isBetween(5, 100);
            assertNextRequestServed(server);
        }
    }

    @Test
    void closingAStreamDuringALongPrefillAbortsItWithoutWaitingForAKeepAliveWrite() throws Exception {
        // prefill of ~400 tokens at 20 tokens/s: 20 s; keep-alives only every 10 s (the default)
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                "prefill_tps", "400", "fault", "slow_prefill=20", "trace_run_start", "1")).set("queue.keep_alive", "10s").start()) {
            try (RawHttp http = RawHttp.post(server.port(), "/v1/chat/completions",
                    "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\""
                            + "word ".repeat(400) + "\"}]}")) {
                assertThat(http.readUntil("\"role\":\"assistant\"", 1)).isTrue();
                server.awaitRunStart("m");
            }
            JsonNode run = awaitRun(server);
            assertThat(run.get("result").asText()).isEqualTo("abort");
            assertThat(run.get("prefill_tokens").asInt()).as("aborted during prefill").isZero();
        }
    }

    @Test
    void closingWhileWaitingForANonStreamingAnswerAbortsTheRun() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", SLOW).set("queue.keep_alive", "200ms").start()) {
            try (RawHttp http = RawHttp.post(server.port(), "/v1/chat/completions", LONG + "}")) {
                server.awaitRunStart("m");
            }
            JsonNode run = awaitRun(server);
            assertThat(run.get("result").asText()).isEqualTo("abort");
            // probed at least every 50 ms while tokens arrive (20 ms apart), so a few tokens, not 2000 (up to 2 s of
            // them on a loaded machine, whose threads wait while the simulated NPU keeps its pace)
            assertThat(run.get("generate_tokens").asInt()).isLessThan(100);
            assertNextRequestServed(server);
        }
    }

    @Test
    void closingWhileQueuedRemovesTheRequestFromTheQueue() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", SLOW).set("queue.keep_alive", "200ms").start()) {
            try (RawHttp running = RawHttp.post(server.port(), "/v1/chat/completions",
                    LONG + ",\"stream\":true}")) {
                assertThat(running.readUntil("\"content\":", 2)).isTrue();
                try (RawHttp queued = RawHttp.post(server.port(), "/v1/chat/completions",
                        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:never]]\"}]}")) {
                    Poll.until("the second request queued", Duration.ofSeconds(5), () -> health(server),
                            h -> h.at("/loaded_models/0/queued").asInt() == 1);
                }
                Poll.until("the closed request leaving the queue", Duration.ofSeconds(5), () -> health(server),
                        h -> h.at("/loaded_models/0/queued").asInt() == 0);
            }
            JsonNode run = awaitRun(server);
            assertThat(run.get("result").asText()).isEqualTo("abort");
            assertNextRequestServed(server);
            assertThat(server.runs("m")).extracting(r -> r.get("prompt").asText()).doesNotContain("[[say:never]]");
        }
    }

    @Test
    void aPipelinedNextRequestIsNotMistakenForADisconnectAndIsAnsweredAfterTheFirst() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", SLOW).set("queue.keep_alive", "200ms").start()) {
            String first = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"[[tokens:25]]\"}]}";
            String second = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:second]]\"}]}";
            try (RawHttp http = RawHttp.post(server.port(), "/v1/chat/completions", first)) {
                server.awaitRunStart("m");
                http.send("/v1/chat/completions", second); // read by the probe while the first is answered
                assertThat(http.readUntil("\"object\":\"chat.completion\"", 2)).as(http.text()).isTrue();
                assertThat(RawHttp.occurrences(http.text(), "HTTP/1.1 200")).isEqualTo(2);
                assertThat(http.text()).contains("\"content\":\"second\"");
            }
            assertThat(server.runs("m")).extracting(r -> r.get("result").asText()).containsExactly("finish", "finish");
            assertThat(server.runs("m").getFirst().get("generate_tokens").asInt()).isEqualTo(25);
        }
    }

    static JsonNode health(TestServer server) throws Exception {
        return server.getForReply("/health").json();
    }

    private static JsonNode awaitRun(TestServer server) throws Exception {
        return Poll.forValue("the aborted run in the trace", Duration.ofSeconds(10),
                () -> server.runs("m").stream().findFirst().map(Optional::of).orElse(Optional.empty()));
    }

    private static void assertNextRequestServed(TestServer server) throws Exception {
        TestServer.Reply reply = server.postForReply("/v1/chat/completions",
                "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:ok]]\"}]}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().at("/choices/0/message/content").asText()).isEqualTo("ok");
        assertThat(server.runs("m").getLast().get("result").asText()).isEqualTo("finish");
    }
}
