package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.download.StandInHub;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import okhttp3.Response;
import okio.BufferedSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ollama's {@code POST /api/pull} and {@code DELETE /api/delete} on a real server that starts with no model, pulling
 * a tiny GGUF model from the stand-in Hub and serving it without a restart.
 */
class PullApiTest {
    private static final String REPO = "tiny/Tiny-Chat-GGUF";

    @TempDir
    Path dir;

    private StandInHub hub;
    private LlamaTestServer server;
    private byte[] model;

    @BeforeEach
    void start() throws IOException {
        hub = StandInHub.start();
        Path file = dir.resolve("tiny.gguf");
        TinyLlama.write(file, TinyLlama.Options.chat());
        model = Files.readAllBytes(file);
        hub.repo(REPO).file("Tiny-Chat-Q4_K_M.gguf", model).file("Tiny-Chat-Q8_0.gguf", model);
        server = LlamaTestServer.in(dir).pullsFrom(hub.endpoint()).start();
    }

    @AfterEach
    void stop() {
        server.close();
        hub.close();
    }

    private List<String> lines(String body) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Response r = server.open("/api/pull", body)) {
            assertThat(r.code()).isEqualTo(200);
            assertThat(r.header("Content-Type")).isEqualTo("application/x-ndjson");
            BufferedSource source = r.body().source();
            String line;
            while ((line = source.readUtf8Line()) != null) {
                lines.add(line);
            }
        }
        return lines;
    }

    private List<String> tags() throws IOException {
        List<String> names = new ArrayList<>();
        server.get("/api/tags").json().path("models").forEach(m -> names.add(m.path("name").asText()));
        return names;
    }

    private List<String> files() throws IOException {
        Path models = dir.resolve("models");
        try (Stream<Path> walk = Files.walk(models)) {
            return walk.filter(p -> !p.equals(models)).map(p -> models.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void aPulledModelIsListedAndAnswersWithoutARestart() throws Exception {
        assertThat(tags()).isEmpty();

        List<String> lines = lines("{\"model\":\"hf.co/" + REPO + "\"}");

        String sha = HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(model));
        assertThat(lines.getFirst()).isEqualTo("{\"status\":\"pulling manifest\"}");
        List<String> progress = lines.subList(1, lines.size() - 3);
        assertThat(progress).isNotEmpty().allMatch(l -> l.matches("\\{\"status\":\"pulling " + sha.substring(0, 12)
                + "\",\"digest\":\"sha256:" + sha + "\",\"total\":" + model.length + ",\"completed\":\\d+}"));
        assertThat(progress.getLast()).endsWith("\"completed\":" + model.length + "}");
        assertThat(lines.subList(lines.size() - 3, lines.size())).containsExactly(
                "{\"status\":\"verifying sha256 digest\"}", "{\"status\":\"writing manifest\"}",
                "{\"status\":\"success\"}");
        assertThat(tags()).containsExactly("tiny-chat-q4_k_m:latest");

        TestServer.Reply chat = server.post("/v1/chat/completions", "{\"model\":\"tiny-chat-q4_k_m\",\"max_tokens\":4,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}");
        assertThat(chat.status()).isEqualTo(200);
        assertThat(chat.json().at("/usage/completion_tokens").asInt()).isPositive();
    }

    @Test
    void aModelSplitIntoPartsIsPulledWholeListedOnceWithAllItsBytesAndAnswers() throws Exception {
        List<Path> parts = TinyLlama.writeSplit(Files.createDirectories(dir.resolve("split")), "Big-Q4_K_M",
                TinyLlama.Options.chat(), 3);
        StandInHub.RepoBuilder repo = hub.repo("tiny/Big-GGUF");
        for (Path part : parts) {
            repo.file("Q4_K_M/" + part.getFileName(), Files.readAllBytes(part));
        }

        assertThat(lines("{\"model\":\"tiny/Big-GGUF\"}")).last().isEqualTo("{\"status\":\"success\"}");

        assertThat(tags()).containsExactly("big-q4_k_m:latest");
        JsonNode listed = server.get("/api/tags").json().at("/models/0");
        assertThat(listed.get("size").asLong()).isEqualTo(parts.stream().mapToLong(p -> p.toFile().length()).sum());
        TestServer.Reply chat = server.post("/v1/chat/completions", "{\"model\":\"big-q4_k_m\",\"max_tokens\":4,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}");
        assertThat(chat.status()).isEqualTo(200);
        assertThat(chat.json().at("/usage/completion_tokens").asInt()).isPositive();
    }

    @Test
    void oneAnswerWithStreamFalseAndTheOlderNameField() throws Exception {
        TestServer.Reply r = server.post("/api/pull", "{\"name\":\"" + REPO + ":Q8_0\",\"insecure\":true,"
                + "\"stream\":false}");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"status\":\"success\"}");
        assertThat(tags()).containsExactly("tiny-chat-q8_0:latest");
    }

    @Test
    void aFailedPullEndsWithAnErrorLineAndLeavesNothingListed() throws Exception {
        assertThat(lines("{\"model\":\"" + REPO + ":Q5_K_S\"}")).containsExactly("{\"status\":\"pulling manifest\"}",
                "{\"error\":\"" + REPO + " has no Q5_K_S quantisation; it has Q4_K_M, Q8_0 (pull " + REPO
                        + ":Q4_K_M)\"}");

        hub.corrupt(REPO, "Tiny-Chat-Q4_K_M.gguf", 12345);
        List<String> corrupt = lines("{\"model\":\"" + REPO + "\"}");
        assertThat(corrupt.getLast()).startsWith("{\"error\":\"Tiny-Chat-Q4_K_M.gguf: the downloaded bytes do not"
                + " have the digest the Hub publishes");

        assertThat(tags()).isEmpty();
        assertThat(files()).isEmpty();
    }

    @Test
    void aFileThatIsNoUsableModelIsRemovedAgain() throws Exception {
        byte[] noise = new byte[5000];
        new java.util.Random(3).nextBytes(noise);
        hub.repo("tiny/Noise-GGUF").file("Noise-Q4_K_M.gguf", noise);

        assertThat(lines("{\"model\":\"tiny/Noise-GGUF\"}").getLast()).isEqualTo("{\"error\":\"Noise-Q4_K_M.gguf"
                + " was downloaded but is not a model this server can serve (the server's log says why); it was"
                + " removed\"}");
        assertThat(tags()).isEmpty();
        assertThat(files()).isEmpty();
    }

    @Test
    void aModelKeptFromBeingServedByItsModelYamlIsKeptAndSaidSo() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("models/Tiny-Chat-Q4_K_M"));
        Files.writeString(folder.resolve("model.yaml"), "context_length: many\n");

        assertThat(lines("{\"model\":\"" + REPO + "\"}").getLast()).isEqualTo("{\"error\":\"Tiny-Chat-Q4_K_M.gguf is"
                + " in " + folder.toAbsolutePath().normalize() + " but not served: the server's log says why (its"
                + " model.yaml?)\"}");
        assertThat(files()).containsExactly("Tiny-Chat-Q4_K_M", "Tiny-Chat-Q4_K_M/.pull.json",
                "Tiny-Chat-Q4_K_M/Tiny-Chat-Q4_K_M.gguf", "Tiny-Chat-Q4_K_M/model.yaml");
    }

    @Test
    void refusalsWithoutStreamingHaveTheirStatusInOllamasShape() throws Exception {
        TestServer.Reply unknown = server.post("/api/pull", "{\"model\":\"nobody/Nothing\",\"stream\":false}");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body()).isEqualTo("{\"error\":\"no repository nobody/Nothing on " + hub.endpoint()
                + " (a private one needs HF_TOKEN)\"}");

        hub.repo("meta/Gated-GGUF").file("Gated-Q4_K_M.gguf", model).gated();
        TestServer.Reply gated = server.post("/api/pull", "{\"model\":\"meta/Gated-GGUF\",\"stream\":false}");
        assertThat(gated.status()).isEqualTo(401);
        assertThat(gated.json().path("error").asText()).startsWith("meta/Gated-GGUF is gated: accept its terms at ")
                .contains("set HF_TOKEN");

        // a name that is no model's is refused before anything is streamed, streaming asked or not
        TestServer.Reply dots = server.post("/api/pull", "{\"model\":\"" + REPO + "/../../etc/passwd\"}");
        assertThat(dots.status()).isEqualTo(400);
        assertThat(dots.body()).isEqualTo("{\"error\":\"'../../etc/passwd' is not a file in a repository: '..', '.'"
                + " and empty parts are not allowed\"}");
        assertThat(server.post("/api/pull", "{}").body()).isEqualTo("{\"error\":\"'model' is required: the model to"
                + " pull, e.g. qwen3:4b or hf.co/bartowski/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M\"}");
        assertThat(server.post("/api/pull", "{\"model\":\"" + REPO + "\",\"stream\":\"no\"}").status()).isEqualTo(400);
        assertThat(tags()).isEmpty();
    }

    @Test
    void deleteUnloadsTheModelAndRemovesItsFolder() throws Exception {
        assertThat(server.post("/api/pull", "{\"model\":\"" + REPO + "\",\"stream\":false}").status()).isEqualTo(200);
        String chat = "{\"model\":\"tiny-chat-q4_k_m\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"Hi\"}]}";
        assertThat(server.post("/v1/chat/completions", chat).status()).isEqualTo(200);
        assertThat(server.get("/api/ps").json().path("models")).hasSize(1);

        TestServer.Reply deleted = server.delete("/api/delete", "{\"model\":\"tiny-chat-q4_k_m:latest\"}");

        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.body()).isEmpty();
        assertThat(tags()).isEmpty();
        assertThat(server.get("/api/ps").json().path("models")).isEmpty();
        assertThat(files()).isEmpty();
        assertThat(server.post("/v1/chat/completions", chat).status()).isEqualTo(404);

        TestServer.Reply again = server.delete("/api/delete", "{\"model\":\"tiny-chat-q4_k_m\"}");
        assertThat(again.status()).isEqualTo(404);
        assertThat(again.body()).isEqualTo("{\"error\":\"model 'tiny-chat-q4_k_m' not found\"}");
    }

    @Test
    void aDeleteNamesTheModelExactlyNeverByPrefix() throws Exception {
        assertThat(server.post("/api/pull", "{\"model\":\"" + REPO + "\",\"stream\":false}").status()).isEqualTo(200);

        assertThat(server.delete("/api/delete", "{\"model\":\"tiny\"}").status()).isEqualTo(404);
        assertThat(tags()).containsExactly("tiny-chat-q4_k_m:latest");
    }

    @Test
    void whereSecurityAllowPullSaysNoEveryRouteThatWritesModelsIs403NamingIt() throws Exception {
        try (LlamaTestServer closed = LlamaTestServer.in(dir.resolve("closed")).pullsFrom(hub.endpoint())
                .set("security.allow_pull", "off").start()) {
            TestServer.Reply pull = closed.post("/api/pull", "{\"model\":\"" + REPO + "\"}");
            assertThat(pull.status()).isEqualTo(403);
            assertThat(pull.body()).isEqualTo("{\"error\":\"pulling and deleting models is off on this server"
                    + " (security.allow_pull: off)\"}");
            assertThat(closed.delete("/api/delete", "{\"model\":\"x\"}").status()).isEqualTo(403);
            assertThat(closed.post("/api/create", "{\"model\":\"x\",\"from\":\"y\"}").status()).isEqualTo(403);
            assertThat(closed.post("/api/blobs/sha256:" + "0".repeat(64), "x").status()).isEqualTo(403);
        }
        assertThat(hub.seen()).isEmpty();
    }

    @Test
    void aModelCopiedInOrRemovedByHandIsSeenWithoutARestart() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("models/Hand-Made"));
        Files.write(folder.resolve("hand-made.gguf"), model);

        Poll.until("the copied model listed", Duration.ofSeconds(10), this::tags,
                t -> t.contains("hand-made:latest"));

        Files.delete(folder.resolve("hand-made.gguf"));
        Poll.until("the removed model gone", Duration.ofSeconds(10), this::tags, List::isEmpty);
    }

    @Test
    void aLoadedModelWhoseFileChangesIsUnloadedAndTheNextRequestLoadsTheNewOne() throws Exception {
        assertThat(server.post("/api/pull", "{\"model\":\"" + REPO + "\",\"stream\":false}").status()).isEqualTo(200);
        String chat = "{\"model\":\"tiny-chat-q4_k_m\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"Hi\"}]}";
        assertThat(server.post("/v1/chat/completions", chat).status()).isEqualTo(200);
        Path file = dir.resolve("models/Tiny-Chat-Q4_K_M/Tiny-Chat-Q4_K_M.gguf");
        TinyLlama.Options o = TinyLlama.Options.chat();
        Path other = dir.resolve("other.gguf");
        TinyLlama.write(other, new TinyLlama.Options(7, o.embeddingLength(), o.layers(), o.heads(), o.kvHeads(),
                o.feedForwardLength(), 1024, o.merges(), o.type(), o.embedding(), o.declaredLayers()));
        Files.move(other, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);

        Poll.until("the changed model unloaded", Duration.ofSeconds(10),
                () -> server.get("/api/ps").json().path("models").size(), n -> n == 0);

        assertThat(server.post("/v1/chat/completions", chat).status()).isEqualTo(200);
        assertThat(server.get("/api/ps").json().at("/models/0/context_length").asInt()).isEqualTo(1024);
    }

    @Test
    void aClientThatLeavesStopsThePullAndTheNextOneFinishesIt() throws Exception {
        // a tiny model with 24 MB after it: discovery reads the header only
        byte[] big = java.util.Arrays.copyOf(model, model.length + (24 << 20));
        hub.repo("tiny/Big-GGUF").file("Big-Q4_K_M.gguf", big);
        try (Response r = server.open("/api/pull", "{\"model\":\"tiny/Big-GGUF\"}")) {
            BufferedSource source = r.body().source();
            assertThat(source.readUtf8Line()).isEqualTo("{\"status\":\"pulling manifest\"}");
            assertThat(source.readUtf8Line()).startsWith("{\"status\":\"pulling ");
        }
        // the server notices at its next line; until its pull ends, another one of the same model is refused
        JsonNode done = Poll.until("a pull that is not refused as under way", Duration.ofSeconds(30),
                () -> server.post("/api/pull", "{\"model\":\"tiny/Big-GGUF\",\"stream\":false}").json(),
                j -> !j.path("error").asText().contains("is being"));

        assertThat(done.path("status").asText()).as(done.toString()).isEqualTo("success");
        assertThat(tags()).containsExactly("big-q4_k_m:latest");
        assertThat(Files.readAllBytes(dir.resolve("models/Big-Q4_K_M/Big-Q4_K_M.gguf"))).isEqualTo(big);
    }
}
