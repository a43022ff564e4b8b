package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.llama.gguf.TinyLlama;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server process as a user starts it, with a GGUF model in the models directory: beside the simulated RKLLM
 * models under {@code --simulate}, and alone on a machine without {@code librkllmrt.so}, where it must start and
 * serve its GGUF models through llama.cpp (the library bundled in the jar).
 */
@Timeout(180)
class GgufProcessTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;
    Path models;

    @BeforeEach
    void tinyModel() throws Exception {
        models = Files.createDirectories(dir.resolve("models").resolve("tiny"));
        TinyLlama.write(models.resolve("tiny.gguf"), TinyLlama.Options.chat());
        models = models.getParent();
    }

    static JsonNode call(int port, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60));
        request = body == null ? request.GET() : request.header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    static String answer(int port, String model) throws Exception {
        return call(port, "POST", "/v1/chat/completions", "{\"model\":\"" + model + "\",\"max_tokens\":8,"
                + "\"temperature\":0,\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}")
                .at("/choices/0/message/content").asText();
    }

    static List<String> ids(int port) throws Exception {
        List<String> ids = new ArrayList<>();
        call(port, "GET", "/v1/models", null).path("data").forEach(m -> ids.add(m.path("id").asText()));
        return ids;
    }

    @Test
    void simulateServesTheSimulatedModelsAndTheGgufModelsOfTheModelsDirectoryBeside() throws Exception {
        ChildServer child = ChildServer.start(dir, System.getProperty("java.class.path"),
                Map.of("RKLLM_MODELS_DIR", models.toString()), "--logging.access_log=false");
        try {
            int port = child.awaitPort();
            List<String> ids = ids(port);
            assertThat(ids).contains("tiny").anyMatch(id -> id.endsWith("-sim"));
            assertThat(answer(port, "tiny")).isNotEmpty();
            assertThat(answer(port, ids.stream().filter(id -> id.endsWith("-sim")).findFirst().orElseThrow()))
                    .isNotEmpty();
            assertThat(Files.readString(child.console())).contains("llama.cpp: ").contains("SIMULATED RUNTIME");
        } finally {
            child.destroyIfAlive();
        }
    }

    @Test
    void aMachineWithoutTheRkllmRuntimeStartsAndServesItsGgufModelsAQwen3OneIncluded() throws Exception {
        // a current architecture (Qwen3: llama.cpp builds before mid-2025 refuse it), served by the bundled library
        // with no engine configuration at all
        Path qwen3 = Files.createDirectories(models.resolve("qwen3-tiny"));
        TinyLlama.write(qwen3.resolve("qwen3-tiny.gguf"), TinyLlama.Options.qwen3());
        ChildServer child = ChildServer.startUnsimulated(dir, System.getProperty("java.class.path"), Map.of(),
                "--models", models.toString(), "--runtime.library", dir.resolve("no-such-librkllmrt.so").toString(),
                "--logging.access_log=false");
        try {
            int port = child.awaitPort();
            assertThat(ids(port)).containsExactlyInAnyOrder("tiny", "qwen3-tiny");
            JsonNode model = call(port, "GET", "/v1/models/tiny", null);
            assertThat(model.toString()).contains("llama");
            assertThat(answer(port, "tiny")).isNotEmpty();
            assertThat(call(port, "GET", "/v1/models/qwen3-tiny", null).at("/gguf/architecture").asText())
                    .isEqualTo("qwen3");
            assertThat(answer(port, "qwen3-tiny")).isNotEmpty();
            String console = Files.readString(child.console());
            assertThat(console).contains("no-such-librkllmrt.so").contains("llama.cpp: ");
        } finally {
            child.destroyIfAlive();
        }
    }

    @Test
    void withoutALlamaLibraryTheRkllmModelsAreServedAndTheGgufModelSaysWhy() throws Exception {
        ChildServer child = ChildServer.start(dir, System.getProperty("java.class.path"),
                Map.of("RKLLM_MODELS_DIR", models.toString()), "--logging.access_log=false",
                "--llama-library", dir.resolve("no-libllama.so").toString());
        try {
            int port = child.awaitPort();
            List<String> ids = ids(port);
            assertThat(answer(port, ids.stream().filter(id -> id.endsWith("-sim")).findFirst().orElseThrow()))
                    .isNotEmpty();
            HttpResponse<String> refused = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/v1/chat/completions")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"tiny\",\"messages\":[{\"role\":"
                            + "\"user\",\"content\":\"Hello\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).as(refused.body()).isIn(404, 503);
            assertThat(refused.body()).contains("no-libllama.so");
            assertThat(Files.readString(child.console())).contains("no-libllama.so");
        } finally {
            child.destroyIfAlive();
        }
    }
}
