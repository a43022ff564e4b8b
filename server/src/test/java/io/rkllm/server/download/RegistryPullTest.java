package io.rkllm.server.download;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.TestDiscovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pulls by Ollama's names from a stand-in Ollama registry on loopback into a real models directory: the manifest,
 * the blobs through the registry's redirect, verified, resumed, placed in one step; the parameters and the system
 * prompt as the model's defaults; an update that downloads only what changed; and discovery serving the result.
 */
class RegistryPullTest {
    private static final String PARAMS = "{\"num_ctx\":8192,\"temperature\":0.6,\"top_p\":0.95,\"top_k\":20,"
            + "\"stop\":[\"<|im_start|>\",\"<|im_end|>\"]}";

    @TempDir
    Path dir;

    private StandInRegistry registry;
    private Path models;
    private byte[] gguf;

    @BeforeEach
    void start() throws IOException {
        models = dir.resolve("models");
        Path file = dir.resolve("tiny.gguf");
        TinyLlama.write(file, TinyLlama.Options.chat());
        gguf = Files.readAllBytes(file);
        registry = StandInRegistry.start();
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    private Puller puller() throws PullException {
        // a Hub that is not there: a name of two parts is looked for there first
        Map<String, String> env = Map.of("RKLLM_REGISTRY", registry.endpoint(), "HF_ENDPOINT", "http://127.0.0.1:9");
        return new Puller(() -> Hub.fromEnvironment(env, "test"),
                new ModelsDirectory(models, DiskSpace.SYSTEM, List.of(".rkllm", ".gguf")), Board.UNKNOWN,
                new Puller.Settings(3, Duration.ZERO, Duration.ofSeconds(30)));
    }

    private String publishQwen3() {
        return registry.model("library/qwen3:4b").layer("model", gguf).layer("template", "{{ .Prompt }}")
                .layer("params", PARAMS).layer("system", "You are terse.").layer("license", "Apache-2.0 text")
                .publish();
    }

    private List<String> tree() throws IOException {
        if (!Files.exists(models)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(models)) {
            return files.filter(Files::isRegularFile).map(p -> models.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void aModelOfTheLibraryByItsShortNameWithItsDefaults() throws Exception {
        publishQwen3();
        PullResult result = puller().pull("qwen3:4b", PullProgress.NONE);

        assertThat(result.folder()).isEqualTo(models.resolve("qwen3-4b"));
        assertThat(Files.readAllBytes(result.model())).isEqualTo(gguf);
        assertThat(tree()).containsExactly("qwen3-4b/.pull.json", "qwen3-4b/LICENSE", "qwen3-4b/model.yaml",
                "qwen3-4b/qwen3-4b.gguf");
        String yaml = Files.readString(models.resolve("qwen3-4b/model.yaml"));
        assertThat(yaml).contains("aliases: [\"qwen3:4b\"]", "context_length: 8192", "temperature: 0.6",
                "top_k: 20", "stop: [\"<|im_start|>\", \"<|im_end|>\"]", "default_system_prompt: \"You are terse.\"");
        assertThat(PullOrigin.of(result.folder()).map(PullOrigin::pullName)).contains("qwen3:4b");

        DiscoveryResult found = TestDiscovery.standard().discover(models);
        assertThat(found.errors()).isEmpty();
        ModelDescriptor model = found.models().getFirst();
        assertThat(model.id()).isEqualTo("qwen3-4b");
        assertThat(model.aliases()).contains("qwen3:4b");
        assertThat(model.contextLength()).isEqualTo(8192);
        assertThat(model.sampling().stop()).containsExactly("<|im_start|>", "<|im_end|>");
        assertThat(model.defaultSystemPrompt()).contains("You are terse.");
    }

    @Test
    void pulledAgainItDownloadsNothingUntilTheRegistryHasANewerManifest() throws Exception {
        publishQwen3();
        puller().pull("qwen3:4b", PullProgress.NONE);
        int transfers = registry.downloads().size();

        String weights = "/blobs/sha256:" + RegistryClient.sha256(gguf);
        PullResult again = puller().pull("qwen3:4b", PullProgress.NONE);
        assertThat(again.upToDate()).isTrue();
        // the small layers (parameters, system prompt) are read again, the weights are not
        assertThat(registry.downloads().subList(transfers, registry.downloads().size()))
                .noneMatch(s -> s.path().equals(weights));

        // a newer manifest: other parameters, the same weights
        registry.model("library/qwen3:4b").layer("model", gguf).layer("params", "{\"num_ctx\":4096}").publish();
        PullResult update = puller().pull("qwen3:4b", PullProgress.NONE);
        assertThat(update.downloaded()).isZero();
        assertThat(registry.downloads().stream().filter(s -> s.path().equals(weights))).hasSize(1);
        assertThat(Files.readString(models.resolve("qwen3-4b/model.yaml"))).contains("context_length: 4096");
    }

    @Test
    void anUnknownModelIsOllamasOwnWords() {
        PullException e = catchThrowableOfType(PullException.class,
                () -> puller().pull("nothing:here", PullProgress.NONE));
        assertThat(e.kind()).isEqualTo(PullException.Kind.NOT_FOUND);
        assertThat(e.getMessage()).isEqualTo("pull model manifest: file does not exist");
    }

    @Test
    void aNamespacedNameNotOnTheHubIsLookedForInTheRegistry() throws Exception {
        registry.model("someone/tiny:q4").layer("model", gguf).publish();
        PullResult result = puller().pull("someone/tiny:q4", PullProgress.NONE);
        assertThat(result.folder()).isEqualTo(models.resolve("someone-tiny-q4"));
    }

    @Test
    void anotherRegistryByItsHostOverPlainHttpOnlyWhenInsecure() throws Exception {
        registry.model("team/tiny:latest").layer("model", gguf).publish();
        String name = registry.host() + "/team/tiny";
        // asked over https, a plain-http server answers the TLS greeting as Go's does: a 400 in plain text
        try (java.net.ServerSocket plain = new java.net.ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                while (!plain.isClosed()) {
                    try (java.net.Socket s = plain.accept()) {
                        s.getInputStream().read(new byte[512]);
                        s.getOutputStream().write(("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"
                                + "400 Bad Request").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    } catch (IOException e) {
                        // closed at the test's end
                    }
                }
            });
            PullException secure = catchThrowableOfType(PullException.class, () -> puller().pull("127.0.0.1:"
                    + plain.getLocalPort() + "/team/tiny", false, PullProgress.NONE));
            assertThat(secure.kind()).isEqualTo(PullException.Kind.BAD_GATEWAY);
            assertThat(secure.getMessage()).startsWith("cannot reach the registry at https://127.0.0.1:"
                    + plain.getLocalPort()).contains("only with insecure: rkllm-server pull --insecure");
        }

        PullResult result = puller().pull(name, true, PullProgress.NONE);
        assertThat(Files.readAllBytes(result.model())).isEqualTo(gguf);
        assertThat(result.folder().getFileName().toString()).isEqualTo("127.0.0.1-" + registry.host()
                .substring(registry.host().indexOf(':') + 1) + "-team-tiny");
    }

    @Test
    void aRegistryThatAsksForATokenGetsOneFromItsRealm() throws Exception {
        publishQwen3();
        registry.requireToken("t0k3n");
        puller().pull("qwen3:4b", PullProgress.NONE);
        assertThat(registry.seen().stream().filter(s -> s.server().equals("registry") && s.path().startsWith("/v2/")))
                .anyMatch(s -> s.authorization().equals(Optional.of("Bearer t0k3n")));
        // the storage it redirects to never gets the token
        assertThat(registry.downloads()).allMatch(s -> s.authorization().isEmpty());
    }

    @Test
    void aBlobThatDoesNotHaveItsDigestInstallsNothing() throws Exception {
        publishQwen3();
        registry.corrupt("sha256:" + RegistryClient.sha256(gguf));
        PullException e = catchThrowableOfType(PullException.class, () -> puller().pull("qwen3:4b", PullProgress.NONE));
        assertThat(e.kind()).isEqualTo(PullException.Kind.BAD_GATEWAY);
        assertThat(tree()).isEmpty();
    }

    @Test
    void aCutTransferIsResumedFromWhereItStopped() throws Exception {
        publishQwen3();
        registry.cutTransfers(5000, 1);
        PullResult result = puller().pull("qwen3:4b", PullProgress.NONE);
        assertThat(Files.readAllBytes(result.model())).isEqualTo(gguf);
        assertThat(registry.downloads()).extracting(StandInRegistry.Seen::range)
                .contains(Optional.of("bytes=5000-"));
    }

    @Test
    void aModelOnlyOllamasEngineRunsIsRefusedBeforeAnyDownload() {
        registry.model("library/mlx-thing:latest").layer("tensor", new byte[] {1, 2, 3}).publish();
        PullException e = catchThrowableOfType(PullException.class,
                () -> puller().pull("mlx-thing", PullProgress.NONE));
        assertThat(e.kind()).isEqualTo(PullException.Kind.INVALID);
        assertThat(e.getMessage()).contains("only Ollama's own engine runs");
        assertThat(registry.downloads()).isEmpty();
    }

    @Test
    void namesAsOllamaReadsThem() throws Exception {
        assertThat(Puller.target("qwen3")).isInstanceOfSatisfying(Puller.Target.InARegistry.class,
                t -> assertThat(t.name().full()).isEqualTo("registry.ollama.ai/library/qwen3:latest"));
        assertThat(Puller.target("localhost:5000/ns/m:7b")).isInstanceOfSatisfying(Puller.Target.InARegistry.class,
                t -> assertThat(t.name().host()).isEqualTo("localhost:5000"));
        assertThat(Puller.target("bartowski/Qwen2.5-1.5B-Instruct-GGUF")).isInstanceOf(Puller.Target.Either.class);
        assertThat(Puller.target("hf.co/bartowski/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M"))
                .isInstanceOf(Puller.Target.OnTheHub.class);
        assertThat(OllamaName.parse("a/b/c/d")).isEmpty();
        assertThat(OllamaName.parse("ns.with.dots/model")).isEmpty();
        assertThat(OllamaName.parse("jmorganca/foo:q4").map(OllamaName::shortest)).contains("jmorganca/foo:q4");
        assertThat(OllamaName.parse("mistral").map(OllamaName::shortest)).contains("mistral:latest");
    }
}
