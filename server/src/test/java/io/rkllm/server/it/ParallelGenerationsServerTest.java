package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.backend.rkllm.RkllmProvider;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.Backends;
import io.rkllm.server.engine.GatedBackend;
import io.rkllm.server.models.TestDiscovery;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model that runs three generations at once, through the real server: three streamed chats are answered side by
 * side, a fourth waits, a fifth finds the queue full, and {@code /health} and {@code /metrics} count what runs and
 * what waits. The model's backend blocks each run until the test ends it (no native code, no sleeps).
 */
class ParallelGenerationsServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void threeChatsRunSideBySideAndHealthAndMetricsCountThem() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("models").resolve("m"));
        Files.writeString(folder.resolve("m.rkllm"), "not a real model");
        ServerConfig config = new ConfigLoader(dir).load(Optional.empty(), Map.of(), Map.of("server.port", "0",
                "logging.access_log", "false", "models.dir", dir.resolve("models").toString(),
                "queue.max_waiting", "1", "cache.slots", "1")).config();
        GatedBackend backend = new GatedBackend(3);
        ServerApp app = ServerApp.start(config, Backends.of(RkllmProvider.NAME, backend),
                TestDiscovery.standard().discover(config.models().dir()).catalog());
        List<RawHttp> streams = new ArrayList<>();
        try {
            for (String text : List.of("first", "second", "third")) {
                streams.add(RawHttp.post(app.port(), "/v1/chat/completions", QueueTest.chat(text, true)));
            }
            Map<String, GatedBackend.Run> runs = new HashMap<>();
            for (int i = 0; i < 3; i++) {
                GatedBackend.Run run = backend.nextRun();
                runs.put(run.text(), run);
            }
            assertThat(runs.keySet()).anyMatch(t -> t.contains("first")).anyMatch(t -> t.contains("second"))
                    .anyMatch(t -> t.contains("third"));
            RawHttp fourth = RawHttp.post(app.port(), "/v1/chat/completions", QueueTest.chat("fourth", true));
            streams.add(fourth);
            assertThat(fourth.readUntil("\"role\":\"assistant\"", 1)).as("accepted, queued").isTrue();

            JsonNode model = get(app, "/health").at("/loaded_models/0");
            assertThat(model.get("running").asInt()).isEqualTo(3);
            assertThat(model.get("queued").asInt()).isEqualTo(1);
            assertThat(model.get("parallel").asInt()).isEqualTo(3);
            assertThat(model.get("busy").asBoolean()).isTrue();
            Exposition metrics = Exposition.text(text(app, "/metrics"));
            assertThat(metrics.get("rkllm_queue_running", Map.of("model", "m"))).isEqualTo(3);
            assertThat(metrics.get("rkllm_queue_waiting", Map.of("model", "m"))).isEqualTo(1);

            HttpResponse<String> full = post(app, QueueTest.chat("fifth", false));
            assertThat(full.statusCode()).as(full.body()).isEqualTo(429);
            assertThat(JSON.readTree(full.body()).at("/error/code").asText()).isEqualTo("queue_full");

            runs.values().forEach(GatedBackend.Run::finish);
            GatedBackend.Run last = backend.nextRun();
            assertThat(last.text()).contains("fourth");
            last.finish();
            for (RawHttp stream : streams) {
                assertThat(stream.readUntil("data: [DONE]", 1)).isTrue();
                assertThat(stream.text()).contains("answer to ");
            }
            assertThat(backend.mostAtOnce()).isEqualTo(3);
            Poll.until("the runs to end", Duration.ofSeconds(10), () -> get(app, "/health"),
                    h -> h.at("/loaded_models/0/running").asInt() == 0);
        } finally {
            for (RawHttp stream : streams) {
                stream.close();
            }
            app.stop(Duration.ZERO);
        }
    }

    private static JsonNode get(ServerApp app, String path) throws Exception {
        return JSON.readTree(text(app, path));
    }

    private static String text(ServerApp app, String path) throws Exception {
        HttpResponse<String> reply = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + app.port() + path)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
        return reply.body();
    }

    private static HttpResponse<String> post(ServerApp app, String json) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port()
                        + "/v1/chat/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
