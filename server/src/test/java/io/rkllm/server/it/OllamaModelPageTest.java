package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.download.StandInRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Open WebUI's model page against a server that starts with no model, in the requests Open WebUI sends (its
 * {@code routers/ollama.py}): "Pull a model from Ollama.com" ({@code {"name", "model", "insecure": true}}, the
 * progress lines read as they come), the pulled name listed, shown and chatted with, "Update all models" (each listed
 * name pulled again), a download cancelled (the stream dropped, then {@code DELETE /api/delete} of the name), and
 * "Upload a GGUF" (the file as a blob, then {@code /api/create} with its file name and digest).
 */
class OllamaModelPageTest {
    private static final String PARAMS = "{\"num_ctx\":2048,\"temperature\":0.6,\"stop\":[\"<|im_end|>\"]}";

    @TempDir
    Path dir;

    private StandInRegistry registry;
    private LlamaTestServer server;
    private byte[] gguf;
    private String hex;

    @BeforeEach
    void start() throws Exception {
        registry = StandInRegistry.start();
        Path file = dir.resolve("tiny.gguf");
        TinyLlama.write(file, TinyLlama.Options.chat());
        gguf = Files.readAllBytes(file);
        hex = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(gguf));
        registry.model("library/qwen3:4b").layer("model", gguf).layer("params", PARAMS)
                .layer("system", "You are terse.").layer("license", "Apache-2.0").publish();
        server = LlamaTestServer.in(dir).pullsFromRegistry(registry.endpoint()).start();
    }

    @AfterEach
    void stop() {
        server.close();
        registry.close();
    }

    /** What Open WebUI's backend sends for its pull box: no stream field, insecure always. */
    private List<String> pull(String name) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Response r = server.open("/api/pull", "{\"name\":\"" + name + "\",\"model\":\"" + name
                + "\",\"insecure\":true}")) {
            assertThat(r.code()).isEqualTo(200);
            BufferedSource source = r.body().source();
            String line;
            while ((line = source.readUtf8Line()) != null) {
                lines.add(line);
            }
        }
        return lines;
    }

    private List<JsonNode> tags() throws IOException {
        List<JsonNode> models = new ArrayList<>();
        server.get("/api/tags").json().path("models").forEach(models::add);
        return models;
    }

    private List<String> staging() throws IOException {
        Path staging = dir.resolve("models/.pull");
        if (!Files.exists(staging)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(staging)) {
            return files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void aModelPulledByItsOllamaNameIsListedShownAndAnswersByIt() throws Exception {
        List<String> lines = pull("qwen3:4b");
        assertThat(lines.getFirst()).isEqualTo("{\"status\":\"pulling manifest\"}");
        assertThat(lines).anyMatch(l -> l.startsWith("{\"status\":\"pulling " + hex.substring(0, 12)
                + "\",\"digest\":\"sha256:" + hex + "\",\"total\":" + gguf.length));
        assertThat(lines.subList(lines.size() - 3, lines.size())).containsExactly(
                "{\"status\":\"verifying sha256 digest\"}", "{\"status\":\"writing manifest\"}",
                "{\"status\":\"success\"}");

        // Open WebUI lists it by the name it was pulled by, which "update all" pulls again
        assertThat(tags()).singleElement().satisfies(m -> {
            assertThat(m.path("name").asText()).isEqualTo("qwen3:4b");
            assertThat(m.path("model").asText()).isEqualTo("qwen3:4b");
        });
        JsonNode show = server.post("/api/show", "{\"model\":\"qwen3:4b\"}").json();
        assertThat(show.path("parameters").asText()).contains("temperature", "0.6").contains("stop")
                .contains("\"<|im_end|>\"").contains("num_ctx").contains("2048");
        assertThat(show.path("system").asText()).isEqualTo("You are terse.");
        assertThat(show.path("license").asText()).isEqualTo("Apache-2.0");

        TestServer.Reply chat = server.post("/api/chat", "{\"model\":\"qwen3:4b\",\"stream\":false,\"options\":"
                + "{\"num_predict\":4},\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        assertThat(chat.status()).as(chat.body()).isEqualTo(200);
        TestServer.Reply openAi = server.post("/v1/chat/completions", "{\"model\":\"qwen3:4b\",\"max_tokens\":4,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        assertThat(openAi.status()).as(openAi.body()).isEqualTo(200);
    }

    @Test
    void aModelPulledByItsOllamaNameIsDeletedByIt() throws Exception {
        pull("qwen3:4b");
        registry.model("someone/tiny:q4").layer("model", gguf).publish();
        pull("someone/tiny:q4");
        assertThat(tags()).hasSize(2);
        // Open WebUI's delete button (and ollama rm) sends the name it lists, right after the pull
        for (String name : List.of("qwen3:4b", "someone/tiny:q4")) {
            TestServer.Reply deleted = server.delete("/api/delete", "{\"name\":\"" + name + "\"}");
            assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
        }
        assertThat(tags()).isEmpty();
        try (Stream<Path> left = Files.walk(dir.resolve("models"))) {
            assertThat(left.filter(p -> p.toString().endsWith(".gguf"))).isEmpty();
        }
        assertThat(server.delete("/api/delete", "{\"name\":\"qwen3:4b\"}").status()).isEqualTo(404);
    }

    @Test
    void updateAllPullsEachListedNameAndDownloadsOnlyWhatChanged() throws Exception {
        pull("qwen3:4b");
        String weights = "/blobs/sha256:" + hex;
        for (JsonNode m : tags()) {
            assertThat(pull(m.path("model").asText()).getLast()).isEqualTo("{\"status\":\"success\"}");
        }
        assertThat(registry.downloads().stream().filter(s -> s.path().equals(weights))).hasSize(1);

        registry.model("library/qwen3:4b").layer("model", gguf).layer("params", "{\"temperature\":0.3}").publish();
        assertThat(pull("qwen3:4b").getLast()).isEqualTo("{\"status\":\"success\"}");
        assertThat(registry.downloads().stream().filter(s -> s.path().equals(weights))).hasSize(1);
        assertThat(server.post("/api/show", "{\"model\":\"qwen3:4b\"}").json().path("parameters").asText())
                .contains("0.3");
    }

    @Test
    void anUnknownNameIsOllamasOwnWordsInTheStream() throws Exception {
        assertThat(pull("nothing:here")).containsExactly("{\"status\":\"pulling manifest\"}",
                "{\"error\":\"pull model manifest: file does not exist\"}");
    }

    @Test
    void aCancelledDownloadLeavesNothing() throws Exception {
        registry.holdAfter(gguf.length / 2);
        Response stream = server.open("/api/pull", "{\"name\":\"qwen3:4b\",\"model\":\"qwen3:4b\",\"insecure\":true}");
        BufferedSource source = stream.body().source();
        String line;
        do {
            line = source.readUtf8Line();
        } while (line != null && !line.contains("\"completed\":"));
        registry.awaitHold();
        stream.close(); // Open WebUI aborts its fetch...
        TestServer.Reply delete = server.delete("/api/delete", "{\"name\":\"qwen3:4b\"}"); // ...then deletes the name
        assertThat(delete.status()).as(delete.body()).isEqualTo(200);
        registry.release();
        assertThat(tags()).isEmpty();
        assertThat(staging()).isEmpty();
        assertThat(Files.exists(dir.resolve("models/qwen3-4b"))).isFalse();
    }

    @Test
    void aGgufUploadedAsOpenWebUiSendsItBecomesAModel() throws Exception {
        String digest = "sha256:" + hex;
        assertThat(head("/api/blobs/" + digest)).isEqualTo(404);
        assertThat(postBytes("/api/blobs/" + digest, gguf)).isEqualTo(201);
        assertThat(head("/api/blobs/" + digest)).isEqualTo(200);
        assertThat(postBytes("/api/blobs/" + digest, gguf)).isEqualTo(200);
        byte[] other = gguf.clone();
        other[other.length - 1] ^= 1;
        assertThat(postBytes("/api/blobs/" + digest.replace(hex.substring(0, 4), "0000"), other)).isEqualTo(400);

        TestServer.Reply created = server.post("/api/create", "{\"model\":\"Tiny-Upload-Q4\",\"files\":"
                + "{\"Tiny-Upload-Q4.gguf\":\"" + digest + "\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(200);
        assertThat(created.body().lines().toList()).containsExactly("{\"status\":\"parsing GGUF\"}",
                "{\"status\":\"using existing layer " + digest + "\"}", "{\"status\":\"writing manifest\"}",
                "{\"status\":\"success\"}");
        assertThat(tags()).extracting(m -> m.path("name").asText()).contains("tiny-upload-q4:latest");
        assertThat(server.post("/api/chat", "{\"model\":\"tiny-upload-q4:latest\",\"stream\":false,\"options\":"
                + "{\"num_predict\":4},\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}").status()).isEqualTo(200);

        // a model made of one here, with its own system prompt and parameters
        TestServer.Reply derived = server.post("/api/create", "{\"model\":\"terse\",\"from\":\"tiny-upload-q4\","
                + "\"system\":\"Be terse.\",\"parameters\":{\"temperature\":0.2},\"stream\":false}");
        assertThat(derived.status()).as(derived.body()).isEqualTo(200);
        JsonNode show = server.post("/api/show", "{\"model\":\"terse\"}").json();
        assertThat(show.path("system").asText()).isEqualTo("Be terse.");
        assertThat(show.path("parameters").asText()).contains("0.2");

        // a Jinja template sent with it is the one it renders; a Go template is not run here, and the stream says so
        TestServer.Reply jinja = server.post("/api/create", "{\"model\":\"plain\",\"from\":\"tiny-upload-q4\","
                + "\"template\":\"{% for m in messages %}<<{{ m.content }}>>{% endfor %}\",\"stream\":false}");
        assertThat(jinja.status()).as(jinja.body()).isEqualTo(200);
        assertThat(server.post("/apply-template", "{\"model\":\"plain\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"Hi\"}]}").json().path("prompt").asText()).isEqualTo("<<Hi>>");
        TestServer.Reply go = server.post("/api/create", "{\"model\":\"go\",\"from\":\"tiny-upload-q4\","
                + "\"template\":\"{{ .Prompt }}\"}");
        assertThat(go.body()).contains("not using the template sent: it is a Go template");
        assertThat(go.body().lines().toList()).last().isEqualTo("{\"status\":\"success\"}");

        assertThat(server.post("/api/create", "{\"model\":\"none\"}").status()).isEqualTo(400);
        TestServer.Reply quantize = server.post("/api/create", "{\"model\":\"q\",\"from\":\"terse\",\"quantize\":"
                + "\"q4_K_M\"}");
        assertThat(quantize.status()).isEqualTo(400);
        assertThat(quantize.body()).isEqualTo("{\"error\":\"quantize is not supported here: this server does not"
                + " requantise; upload the GGUF of the quantisation you want\"}");
        assertThat(server.post("/api/create", "{\"model\":\"x\",\"files\":{\"x.gguf\":\"sha256:" + "ab".repeat(32)
                + "\"}}").status()).isEqualTo(400);
        assertThat(server.post("/api/create", "{\"model\":\"terse\",\"from\":\"tiny-upload-q4\"}").status())
                .isEqualTo(409);
    }

    private int head(String path) throws IOException {
        try (Response r = server.client().newCall(new Request.Builder().url(server.url(path)).head().build())
                .execute()) {
            return r.code();
        }
    }

    @Test
    void anUploadLargerThanTheDiskIsRefusedBeforeAByteIsWritten() throws Exception {
        // a petabyte announced: refused on its Content-Length, the body never read, nothing left behind
        java.net.URI uri = java.net.URI.create(server.url("/"));
        try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
            socket.getOutputStream().write(("POST /api/blobs/sha256:" + "ab".repeat(32) + " HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Length: 1000000000000000\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String answer = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 507 ").contains("{\"error\":\"").contains("free");
        }
        assertThat(head("/api/blobs/sha256:" + "ab".repeat(32))).isEqualTo(404);
        try (Stream<Path> left = Files.walk(dir)) {
            assertThat(left.map(Path::toString).filter(p -> p.contains("upload-") || p.endsWith(".blob"))).isEmpty();
        }
    }

    private int postBytes(String path, byte[] body) throws IOException {
        try (Response r = server.client().newCall(new Request.Builder().url(server.url(path))
                .post(RequestBody.create(body)).build()).execute()) {
            return r.code();
        }
    }
}
