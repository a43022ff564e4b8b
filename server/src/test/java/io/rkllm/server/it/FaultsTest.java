package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.harness.Health;
import io.rkllm.server.harness.RawHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every fault of the simulated runtime gives its client a clear error (JSON before the 200, an SSE
 * error event after it), leaves no thread, handle or queued work behind, and the model, or a
 * reload of it, serves the next request.
 */
class FaultsTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    static String chat(String model, String content, boolean stream) {
        return "{\"model\":\"" + model + "\",\"stream\":" + stream + ",\"messages\":[{\"role\":\"user\",\"content\":"
                + quote(content) + "}]}";
    }

    static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static long modelThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("rkllm-model-")).count();
    }

    /** Waits for the model threads to come down to {@code expected}. */
    static long modelThreadsSettle(long expected) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (modelThreads() > expected && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        return modelThreads();
    }

    private Path modelFile(String id) {
        return dir.resolve("models").resolve(id).resolve(id + ".rkllm");
    }

    private void setFault(String id, String fault) throws Exception {
        Path file = modelFile(id);
        List<String> lines = Files.readAllLines(file).stream().filter(l -> !l.startsWith("fault:")).toList();
        Files.write(file, fault == null ? lines
                : java.util.stream.Stream.concat(lines.stream(), java.util.stream.Stream.of("fault: " + fault)).toList());
    }

    private static JsonNode idleHealth(TestServer server) throws Exception {
        JsonNode health = Health.waitIdle(server.port(), Duration.ofSeconds(10));
        assertThat(Health.isIdle(health)).as(health.toString()).isTrue();
        return health;
    }

    private static void assertOk(TestServer server, String model, String text) throws Exception {
        TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat(model, "[[say:" + text + "]]", false));
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().at("/choices/0/message/content").asText()).isEqualTo(text);
    }

    /** After the server stopped: every handle the runtime created was destroyed. */
    private static void assertEveryHandleDestroyed(TestServer server, String model) {
        List<JsonNode> trace = server.trace(model);
        long created = trace.stream().filter(l -> l.path("call").asText().equals("init")
                && l.path("result").asText().equals("ok")).count();
        long destroyed = trace.stream().filter(l -> l.path("call").asText().equals("destroy")).count();
        assertThat(destroyed).as("handles destroyed").isEqualTo(created);
    }

    private static String error(String body) throws Exception {
        return JSON.readTree(body).path("error").path("code").asText();
    }

    /** The last SSE event of a stream that failed after the 200: an error, no [DONE]. */
    private static JsonNode streamError(TestServer.Reply reply) throws Exception {
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body()).doesNotContain("[DONE]");
        String[] events = reply.body().strip().split("\n\n");
        String last = events[events.length - 1];
        assertThat(last).startsWith("data: ");
        return JSON.readTree(last.substring(6)).path("error");
    }

    @Test
    void aFailedInitIsA503BeforeTheStreamAndTheFixedFileLoads() throws Exception {
        long before = modelThreadsSettle(0); // a closed server of an earlier test may still be stopping its threads
        try (TestServer server = TestServer.in(dir).model("m", Map.of("fault", "init_fail")).start()) {
            for (boolean stream : new boolean[] {false, true}) {
                TestServer.Reply r = server.postForReply("/v1/chat/completions", chat("m", "[[say:x]]", stream));
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.header("Content-Type")).startsWith("application/json");
                assertThat(r.header("Retry-After")).isNotNull();
                assertThat(error(r.body())).isEqualTo("model_load_failed");
                assertThat(r.json().at("/error/message").asText()).contains("simulated init failure");
                assertThat(modelThreadsSettle(before)).isEqualTo(before);
            }
            assertThat(server.postForReply("/v1/models/m/load", "").status()).isEqualTo(503);
            JsonNode health = server.getForReply("/health").json();
            assertThat(health.path("status").asText()).isEqualTo("ok");
            assertThat(health.path("loaded_models")).isEmpty();

            setFault("m", "init_null");
            TestServer.Reply nullHandle = server.postForReply("/v1/chat/completions", chat("m", "[[say:x]]", true));
            assertThat(nullHandle.status()).isEqualTo(503);
            assertThat(nullHandle.json().at("/error/message").asText()).contains("returned success but no handle");
            assertThat(modelThreadsSettle(before)).isEqualTo(before);

            setFault("m", null);
            assertOk(server, "m", "loaded at last");
            assertThat(modelThreads()).isEqualTo(before + 1);
            idleHealth(server);
            server.close();
            assertThat(modelThreadsSettle(before)).isEqualTo(before);
            assertEveryHandleDestroyed(server, "m");
        }
    }

    @Test
    void anErrorMidStreamIsAnSseErrorEventAndTheModelStaysUsable() throws Exception {
        long before = modelThreadsSettle(0); // a closed server of an earlier test may still be stopping its threads
        try (TestServer server = TestServer.in(dir).model("m", Map.of("fault", "error_after=3")).start()) {
            JsonNode e = streamError(server.postForReply("/v1/chat/completions", chat("m", "[[tokens:20]]", true)));
            assertThat(e.path("code").asText()).isEqualTo("runtime_error");
            assertThat(e.path("message").asText()).contains("stays loaded");
            TestServer.Reply plain = server.postForReply("/v1/chat/completions", chat("m", "[[tokens:20]]", false));
            assertThat(plain.status()).isEqualTo(500);
            assertThat(error(plain.body())).isEqualTo("runtime_error");
            // the same handle, the same worker thread: a short answer passes
            assertOk(server, "m", "ok");
            assertThat(modelThreads()).isEqualTo(before + 1);
            assertThat(server.runs("m").stream().map(r -> r.path("result").asText()).toList())
                    .containsExactly("error", "error", "finish");
            idleHealth(server);
            server.close();
            assertEveryHandleDestroyed(server, "m");
        }
    }

    @Test
    void aHungRunIsAbortedByTheWatchdogAndAReloadServes() throws Exception {
        long before = modelThreadsSettle(0); // a closed server of an earlier test may still be stopping its threads
        try (TestServer server = TestServer.in(dir).model("m", Map.of("fault", "hang"))
                .set("timeouts.first_token", "1s").set("queue.keep_alive", "300ms").start()) {
            JsonNode e = streamError(server.postForReply("/v1/chat/completions", chat("m", "hello", true)));
            assertThat(e.path("code").asText()).isEqualTo("generation_timeout");
            assertThat(e.path("message").asText()).contains("timeouts.first_token");
            TestServer.Reply plain = server.postForReply("/v1/chat/completions", chat("m", "hello", false));
            assertThat(plain.status()).isEqualTo(504);
            assertThat(error(plain.body())).isEqualTo("generation_timeout");
            assertThat(server.runs("m").stream().map(r -> r.path("result").asText()).toList())
                    .containsExactly("abort", "abort");
            idleHealth(server);
            setFault("m", null);
            assertThat(server.postForReply("/v1/models/m/unload", "").status()).isEqualTo(200);
            assertThat(modelThreadsSettle(before)).isEqualTo(before);
            assertOk(server, "m", "reloaded");
            server.close();
            assertEveryHandleDestroyed(server, "m");
        }
    }

    @Test
    void aHungEmbeddingRunIsAbortedAfterTheFirstTokensWait() throws Exception {
        Map<String, String> hung = new java.util.HashMap<>(EmbeddingsApiTest.EMBEDDING);
        hung.put("fault", "hang");
        try (TestServer server = TestServer.in(dir).model("e", hung).sidecar("e", EmbeddingsApiTest.SIDECAR)
                .set("timeouts.first_token", "1s").start()) {
            // a document's chunk waits for one input's run, not for timeouts.total (15 minutes)
            TestServer.Reply reply = server.postForReply("/v1/embeddings", "{\"model\":\"e\",\"input\":\"abc\"}");
            assertThat(reply.status()).as(reply.body()).isEqualTo(504);
            assertThat(error(reply.body())).isEqualTo("generation_timeout");
        }
    }

    @Test
    void aClientGoneDuringAPrefillThatIgnoresAbortDoesNotWedgeTheQueue() throws Exception {
        long before = modelThreadsSettle(0); // a closed server of an earlier test may still be stopping its threads
        // prefill of about 40 tokens at 40 tok/s, 6 times slower: about 6 s that an abort cannot interrupt, and
        // that the client's hang-up falls into however long a loaded machine takes to see the run start
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                        "prefill_tps", "40", "decode_tps", "500", "fault", "slow_prefill=6, abort_ignores_prefill",
                        "trace_run_start", "1"))
                .set("queue.keep_alive", "200ms").start()) {
            assertThat(server.postForReply("/v1/models/m/load", "").status()).isEqualTo(200);
            String first = chat("m", "[[say:never read]]", true);
            try (RawHttp gone = RawHttp.open("127.0.0.1", server.port(), Duration.ofSeconds(10))) {
                gone.send(RawHttp.request("POST", "/v1/chat/completions", Map.of("Content-Type", "application/json"),
                        first.getBytes(StandardCharsets.UTF_8)));
                assertThat(gone.readHead().status()).isEqualTo(200);
                // the runtime's run has begun: it is prefilling now, for about 6 s (the model's busy flag comes
                // earlier, when the worker takes the job: a hang-up then cancels a run that never starts)
                server.awaitRunStart("m");
                gone.hangUp(true);
            }
            TestServer.Reply next = server.postForReply("/v1/chat/completions", chat("m", "[[say:next]]", false));
            assertThat(next.status()).as(next.body()).isEqualTo(200);
            assertThat(next.json().at("/choices/0/message/content").asText()).isEqualTo("next");
            List<JsonNode> runs = server.runs("m");
            assertThat(runs).as("%s", runs).hasSize(2);
            assertThat(runs.get(0).path("result").asText()).as("%s", runs).isEqualTo("abort");
            assertThat(runs.get(0).path("generate_tokens").asInt()).as("%s", runs).isZero();
            assertThat(runs.get(0).path("prefill_tokens").asInt()).isPositive();
            assertThat(runs.get(1).path("result").asText()).isEqualTo("finish");
            idleHealth(server);
            assertThat(modelThreads()).isEqualTo(before + 1);
            server.close();
            assertEveryHandleDestroyed(server, "m");
        }
    }

    @Test
    void aDeletedModelFileFailsTheNextLoadCleanly() throws Exception {
        long before = modelThreadsSettle(0); // a closed server of an earlier test may still be stopping its threads
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            assertOk(server, "m", "loaded");
            Path file = modelFile("m");
            String text = Files.readString(file);
            Files.delete(file);
            assertOk(server, "m", "still loaded"); // the handle does not need the file
            assertThat(server.postForReply("/v1/models/m/unload", "").status()).isEqualTo(200);
            assertThat(modelThreadsSettle(before)).isEqualTo(before);
            TestServer.Reply r = server.postForReply("/v1/chat/completions", chat("m", "[[say:x]]", true));
            assertThat(r.status()).isEqualTo(503);
            assertThat(error(r.body())).isEqualTo("model_load_failed");
            assertThat(r.json().at("/error/message").asText()).contains("not readable");
            assertThat(modelThreadsSettle(before)).isEqualTo(before);
            Files.writeString(file, text);
            assertOk(server, "m", "back");
            idleHealth(server);
            server.close();
            assertEveryHandleDestroyed(server, "m");
        }
    }

    @Test
    void aSecondModelThatDoesNotFitFailsWhileTheFirstServes() throws Exception {
        long before = modelThreadsSettle(0); // a closed server of an earlier test may still be stopping its threads
        try (TestServer server = TestServer.in(dir).model("a", Map.of()).model("b", Map.of("fault", "max_handles=1"))
                .set("models.max_loaded", "2").start()) {
            assertOk(server, "a", "first");
            TestServer.Reply r = server.postForReply("/v1/chat/completions", chat("b", "[[say:x]]", false));
            assertThat(r.status()).isEqualTo(503);
            assertThat(error(r.body())).isEqualTo("model_load_failed");
            assertThat(r.json().at("/error/message").asText()).contains("failed to allocate NPU memory");
            assertThat(modelThreadsSettle(before + 1)).isEqualTo(before + 1);
            assertOk(server, "a", "still here");
            assertThat(server.postForReply("/v1/models/a/unload", "").status()).isEqualTo(200);
            assertOk(server, "b", "fits now");
            idleHealth(server);
            server.close();
            assertThat(modelThreadsSettle(before)).isEqualTo(before);
            assertEveryHandleDestroyed(server, "a");
            assertEveryHandleDestroyed(server, "b");
        }
    }
}
