package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading, unloading, switching and idle unload, checked against the runtime's own trace. */
class ModelLifecycleTest {
    @TempDir
    Path dir;

    private static String chat(String model, String content) {
        return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":"
                + ChatCompletionsTest.quote(content) + "}]}";
    }

    private List<JsonNode> sharedTrace() throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        Path file = dir.resolve("shared.trace.jsonl");
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                lines.add(TestServer.JSON.readTree(line));
            }
        }
        return lines;
    }

    private static int indexOf(List<JsonNode> trace, String call, String field, String value) {
        for (int i = 0; i < trace.size(); i++) {
            JsonNode line = trace.get(i);
            if (line.path("call").asText().equals(call) && (field == null || line.path(field).asText().equals(value))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean loaded(TestServer server, String id) throws Exception {
        return server.getForReply("/v1/models/" + id).json().get("loaded").asBoolean();
    }

    @Test
    void aSwitchWaitsForTheBusyModelsQueueInsteadOfCancellingIt() throws Exception {
        try (TestServer server = TestServer.in(dir).set("models.max_loaded", "1")
                .model("a", Map.of("time_scale", "1", "init_ms", "0", "decode_tps", "200", "prefill_tps", "100000"))
                .model("b", Map.of()).start()) {
            assertThat(server.postForReply("/v1/models/a/load", "").status()).isEqualTo(200);
            // a is busy with a long answer and has one more request queued when b is asked for
            try (RawHttp running = RawHttp.post(server.port(), "/v1/chat/completions",
                    chat("a", "[[tokens:300]]").replace("}]}", "}],\"stream\":true}"))) {
                assertThat(running.readUntil("\"content\":", 2)).isTrue();
                var queued = java.util.concurrent.CompletableFuture.supplyAsync(() -> post(server,
                        chat("a", "[[say:queued on a]]")));
                Poll.until("the second request for a to be queued", Duration.ofSeconds(10),
                        () -> ClientDisconnectTest.health(server).at("/loaded_models/0/queued").asInt(), q -> q == 1);
                TestServer.Reply b = server.postForReply("/v1/chat/completions", chat("b", "[[say:from b]]"));
                assertThat(b.status()).as(b.body()).isEqualTo(200);
                assertThat(b.json().at("/choices/0/message/content").asText()).isEqualTo("from b");
                TestServer.Reply a = queued.get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(a.status()).as("the queued request was served, not cancelled: " + a.body()).isEqualTo(200);
                assertThat(a.json().at("/choices/0/message/content").asText()).isEqualTo("queued on a");
                assertThat(running.readUntil("[DONE]", 1)).isTrue();
            }
            assertThat(server.runs("a").stream().map(r -> r.get("result").asText()).toList())
                    .containsExactly("finish", "finish");
            assertThat(loaded(server, "a")).isFalse();
            assertThat(loaded(server, "b")).isTrue();
        }
    }

    @Test
    void switchingBackAndForthUnderLoadLosesNoRequest() throws Exception {
        try (TestServer server = TestServer.in(dir).set("models.max_loaded", "1")
                .model("a", Map.of("time_scale", "0")).model("b", Map.of("time_scale", "0")).start()) {
            // each request's model may be the other one's switch: none may unload it before it has queued
            List<java.util.concurrent.Future<TestServer.Reply>> replies = new java.util.ArrayList<>();
            try (var clients = java.util.concurrent.Executors.newFixedThreadPool(8)) {
                for (int i = 0; i < 120; i++) {
                    String model = i % 2 == 0 ? "a" : "b";
                    replies.add(clients.submit(() -> post(server, chat(model, "[[say:from " + model + "]]"))));
                }
            }
            for (var reply : replies) {
                TestServer.Reply r = reply.get();
                assertThat(r.status()).as(r.body()).isEqualTo(200);
            }
        }
    }

    private static TestServer.Reply post(TestServer server, String body) {
        try {
            return server.postForReply("/v1/chat/completions", body);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void withOneModelAllowedTheFirstIsDestroyedBeforeTheSecondLoads() throws Exception {
        String trace = dir.resolve("shared.trace.jsonl").toString();
        try (TestServer server = TestServer.in(dir).set("models.max_loaded", "1")
                .model("a", Map.of("trace", trace)).model("b", Map.of("trace", trace)).start()) {
            assertThat(server.postForReply("/v1/chat/completions", chat("a", "[[say:from a]]")).json()
                    .at("/choices/0/message/content").asText()).isEqualTo("from a");
            assertThat(loaded(server, "a")).isTrue();
            assertThat(server.postForReply("/v1/chat/completions", chat("b", "[[say:from b]]")).json()
                    .at("/choices/0/message/content").asText()).isEqualTo("from b");
            assertThat(loaded(server, "a")).isFalse();
            assertThat(loaded(server, "b")).isTrue();

            List<JsonNode> lines = sharedTrace();
            int initA = indexOf(lines, "init", "model", "a");
            int initB = indexOf(lines, "init", "model", "b");
            String handleA = lines.get(initA).get("handle").asText();
            int destroyA = indexOf(lines, "destroy", "handle", handleA);
            assertThat(initA).isNotNegative();
            assertThat(destroyA).as("a destroyed").isGreaterThan(initA);
            assertThat(initB).as("b initialised after a was destroyed").isGreaterThan(destroyA);
            assertThat(lines.get(initB).get("result").asText()).isEqualTo("ok");
        }
    }

    @Test
    void loadAndUnloadOnRequest() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            assertThat(loaded(server, "m")).isFalse();
            TestServer.Reply load = server.postForReply("/v1/models/m/load", "");
            assertThat(load.status()).isEqualTo(200);
            assertThat(load.json().get("loaded").asBoolean()).isTrue();
            assertThat(server.trace("m")).extracting(l -> l.get("call").asText()).containsExactly("init");
            TestServer.Reply unload = server.postForReply("/v1/models/m/unload", "");
            assertThat(unload.status()).isEqualTo(200);
            assertThat(unload.json().get("loaded").asBoolean()).isFalse();
            assertThat(server.trace("m")).extracting(l -> l.get("call").asText()).containsExactly("init", "destroy");
            assertThat(server.postForReply("/v1/models/m/unload", "").status()).as("unloading twice is fine")
                    .isEqualTo(200);
        }
    }

    @Test
    void anIdleModelIsUnloaded() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("models.idle_unload", "1s").start()) {
            assertThat(server.postForReply("/v1/chat/completions", chat("m", "[[say:hi]]")).status()).isEqualTo(200);
            assertThat(loaded(server, "m")).isTrue();
            Poll.until("the idle model to be unloaded", Duration.ofSeconds(10), () -> loaded(server, "m"), l -> !l);
            // the model leaves the list first, then its worker destroys the handle
            Poll.until("the handle to be destroyed", Duration.ofSeconds(10),
                    () -> server.trace("m").getLast().get("call").asText(), "destroy"::equals);
            assertThat(server.postForReply("/v1/chat/completions", chat("m", "[[say:again]]")).json()
                    .at("/choices/0/message/content").asText()).isEqualTo("again");
        }
    }

    @Test
    void aFailedLoadIsAClear503AndTheNextRequestRetriesTheLoad() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("fault", "init_fail")).start()) {
            TestServer.Reply failed = server.postForReply("/v1/chat/completions", chat("m", "[[say:hi]]"));
            ChatCompletionsTest.assertError(failed, 503, "model_load_failed");
            assertThat(failed.json().at("/error/message").asText()).contains("m").contains("failed to load");
            assertThat(failed.header("Retry-After")).isNotNull();
            ChatCompletionsTest.assertError(server.postForReply("/v1/models/m/load", ""), 503, "model_load_failed");
            ChatCompletionsTest.assertError(server.postForReply("/v1/chat/completions", chat("m", "[[say:hi]]")),
                    503, "model_load_failed");
            assertThat(loaded(server, "m")).isFalse();

            Path file = dir.resolve("models/m/m.rkllm");
            Files.writeString(file, Files.readString(file).replace("fault: init_fail\n", ""));
            TestServer.Reply ok = server.postForReply("/v1/chat/completions", chat("m", "[[say:hi]]"));
            assertThat(ok.status()).as(ok.body()).isEqualTo(200);
            assertThat(ok.json().at("/choices/0/message/content").asText()).isEqualTo("hi");
            assertThat(server.trace("m").stream().filter(l -> l.get("call").asText().equals("init"))
                    .map(l -> l.get("result").asText())).containsExactly("error", "error", "error", "ok");
        }
    }
}
