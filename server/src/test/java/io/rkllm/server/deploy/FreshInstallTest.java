package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.download.StandInHub;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fresh install: the server process starts with no model (and no models directory, and no RKLLM runtime), says
 * how to get one, and serves a model pulled over its API without a restart, from the stand-in Hub of HF_ENDPOINT.
 */
@Timeout(180)
class FreshInstallTest {
    @TempDir
    Path dir;

    private StandInHub hub;

    @BeforeEach
    void hub() throws Exception {
        hub = StandInHub.start();
        Path tiny = dir.resolve("tiny.gguf");
        TinyLlama.write(tiny, TinyLlama.Options.chat());
        hub.repo("tiny/Tiny-Chat-GGUF").file("Tiny-Chat-Q4_K_M.gguf", Files.readAllBytes(tiny));
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    private static HttpResponse<String> send(int port, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Accept", "text/html, application/json");
        request = body == null ? request.GET() : request.header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body));
        return GgufProcessTest.CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void noModelsNoDirectoryNoRuntimeStartsSaysHowAndServesWhatIsPulled() throws Exception {
        Path models = dir.resolve("models-not-yet");
        ChildServer child = ChildServer.startUnsimulated(dir, System.getProperty("java.class.path"),
                Map.of("HF_ENDPOINT", hub.endpoint()), "--models", models.toString(), "--logging.access_log=false");
        try {
            int port = child.awaitPort();
            String console = Files.readString(child.console());
            assertThat(console).contains("models in " + models + ":\n  none yet (the directory does not exist yet:"
                    + " the first pull creates it): download one with `rkllm-server pull OWNER/REPO[:QUANT]`")
                    .doesNotContain("error:");
            HttpResponse<String> health = send(port, "GET", "/health", null);
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).contains("no model yet: download one with `rkllm-server pull OWNER/REPO[:QUANT]`");
            assertThat(GgufProcessTest.ids(port)).isEmpty();
            assertThat(send(port, "GET", "/", null).body()).contains("<title>rkllm-server chat</title>");
            HttpResponse<String> chat = send(port, "POST", "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"Hello\"}]}");
            assertThat(chat.statusCode()).isEqualTo(404);
            assertThat(chat.body()).contains("No model is installed yet: download one with `rkllm-server pull");

            HttpResponse<String> pulled = send(port, "POST", "/api/pull", "{\"model\":\"hf.co/tiny/Tiny-Chat-GGUF\","
                    + "\"stream\":false}");

            assertThat(pulled.body()).isEqualTo("{\"status\":\"success\"}");
            assertThat(GgufProcessTest.ids(port)).containsExactly("tiny-chat-q4_k_m");
            assertThat(GgufProcessTest.answer(port, "tiny-chat-q4_k_m")).isNotEmpty();
            assertThat(models.resolve("Tiny-Chat-Q4_K_M/Tiny-Chat-Q4_K_M.gguf")).exists();
        } finally {
            child.destroyIfAlive();
        }
    }

    @Test
    void aServerThatStartedWithoutGgufModelsOpensLlamaCppForThePulledOne() throws Exception {
        Path models = Files.createDirectories(dir.resolve("models"));
        ChildServer child = ChildServer.start(dir, System.getProperty("java.class.path"),
                Map.of("HF_ENDPOINT", hub.endpoint(), "RKLLM_MODELS_DIR", models.toString()),
                "--logging.access_log=false");
        try {
            int port = child.awaitPort();
            assertThat(Files.readString(child.console())).contains("llama.cpp: llama.cpp library: opened when the first .gguf"
                    + " model loads");

            assertThat(send(port, "POST", "/api/pull", "{\"model\":\"tiny/Tiny-Chat-GGUF\",\"stream\":false}").body())
                    .isEqualTo("{\"status\":\"success\"}");

            assertThat(GgufProcessTest.ids(port)).contains("tiny-chat-q4_k_m").anyMatch(id -> id.endsWith("-sim"));
            assertThat(GgufProcessTest.answer(port, "tiny-chat-q4_k_m")).isNotEmpty();
        } finally {
            child.destroyIfAlive();
        }
    }

    @Test
    void thePullCommandPipedWritesItsOwnLinesOnlyAndTheFirstModelIsThere() throws Exception {
        Path models = dir.resolve("models-not-yet");
        Path stdout = dir.resolve("pull.out");
        Path stderr = dir.resolve("pull.err");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", ChildServer.CLIENT_COMPILER, "-cp",
                System.getProperty("java.class.path"), "io.rkllm.server.Main", "pull", "tiny/Tiny-Chat-GGUF",
                "--models", models.toString()).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        pb.environment().put("HF_ENDPOINT", hub.endpoint());
        pb.environment().put("HOME", dir.toString());
        pb.directory(dir.toFile());

        assertThat(pb.start().waitFor()).isZero();

        // what a script reads: the command's own lines, no log line repeating them (the logger's time stamp)
        assertThat(Files.readAllLines(stdout)).first().isEqualTo("pulling tiny/Tiny-Chat-GGUF from " + hub.endpoint());
        assertThat(Files.readAllLines(stdout)).noneMatch(l -> l.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*"))
                .last().asString().startsWith("served as model 'tiny-chat-q4_k_m'");
        assertThat(Files.readString(stderr)).isEmpty();
        assertThat(models.resolve("Tiny-Chat-Q4_K_M/Tiny-Chat-Q4_K_M.gguf")).exists();
    }
}
