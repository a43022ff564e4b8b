package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.app.Simulation;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --simulate} serves its bundled Qwen3-Embedding-0.6B stand-in beside the chat models, as shipped. */
class SimulatedEmbeddingModelTest {
    @TempDir
    Path dir;

    @Test
    void theBundledEmbeddingModelAnswersWithTheWidthOfQwen3Embedding() throws Exception {
        ServerConfig config = new ConfigLoader(dir).load(Optional.empty(), Map.of(), Map.of("runtime.simulate", "true",
                "server.port", "0", "logging.access_log", "false")).config();
        try (Simulation simulation = Simulation.inTempDirectory()) {
            ServerApp app = ServerApp.simulated(config, simulation, simulation.models(), Map.of());
            try {
                HttpClient http = HttpClient.newHttpClient();
                HttpResponse<String> reply = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + app.port() + "/v1/embeddings")).timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"qwen3-embedding\",\"input\":\"Hi\"}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
                JsonNode json = new ObjectMapper().readTree(reply.body());
                assertThat(json.get("model").asText()).isEqualTo("qwen3-embedding");
                JsonNode vector = json.at("/data/0/embedding");
                assertThat(vector).hasSize(1024);
                double sum = 0;
                for (JsonNode v : vector) {
                    sum += v.asDouble() * v.asDouble();
                }
                assertThat(Math.sqrt(sum)).isCloseTo(1.0, within(1e-5));
                // "Hi" and <|endoftext|>: the text as Qwen3-Embedding reads it
                assertThat(json.at("/usage/prompt_tokens").asInt()).isEqualTo(2);
                HttpResponse<String> models = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + app.port() + "/v1/models/qwen3-embedding-0.6b-sim")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(new ObjectMapper().readTree(models.body()).get("dimensions").asInt()).isEqualTo(1024);
            } finally {
                app.stop(Duration.ofSeconds(5));
            }
        }
    }
}
