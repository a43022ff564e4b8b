package io.rkllm.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.download.StandInHub;
import io.rkllm.server.download.StandInRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rkllm-server pull} against the stand-in Hub: its lines, its exit codes, the model it leaves served. */
class PullCommandTest {
    @TempDir
    Path dir;

    private StandInHub hub;
    private StandInRegistry registry;
    private byte[] gguf;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private long size;

    @BeforeEach
    void startHub() throws Exception {
        hub = StandInHub.start();
        Path model = dir.resolve("tiny.gguf");
        TinyLlama.write(model, TinyLlama.Options.chat());
        size = Files.size(model);
        gguf = Files.readAllBytes(model);
        registry = StandInRegistry.start();
        hub.repo("tiny/Tiny-Chat-GGUF").file("Tiny-Chat-Q4_K_M.gguf", Files.readAllBytes(model))
                .file("Tiny-Chat-Q8_0.gguf", new byte[] {1, 2, 3});
    }

    @AfterEach
    void stopHub() {
        hub.close();
        registry.close();
    }

    private int pull(String... args) {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", dir.toString());
        env.put("HF_ENDPOINT", hub.endpoint());
        env.put("RKLLM_REGISTRY", registry.endpoint());
        env.put("RKLLM_LOGGING_LEVEL", "warn");
        List<String> all = new java.util.ArrayList<>(List.of("pull", "--models", dir.resolve("models").toString()));
        all.addAll(List.of(args));
        return new Main(env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(all.toArray(String[]::new));
    }

    private List<String> lines() {
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void pullsWithProgressLinesAndSaysWhatItIsServedAs() {
        assertThat(pull("hf.co/tiny/Tiny-Chat-GGUF")).isEqualTo(Main.OK);

        Path folder = dir.resolve("models/Tiny-Chat-Q4_K_M").toAbsolutePath();
        List<String> lines = lines();
        String kb = (size + 500) / 1000 + " KB";
        assertThat(lines.getFirst()).isEqualTo("pulling tiny/Tiny-Chat-GGUF from " + hub.endpoint());
        assertThat(lines.get(1)).isEqualTo("  1 file, " + kb + ", into " + folder);
        assertThat(lines.get(2)).isEqualTo("  Tiny-Chat-Q4_K_M.gguf: 0% of " + kb);
        // then a line at each tenth the transfer passes, the last with the speed
        assertThat(lines.subList(3, lines.size() - 2)).allMatch(l -> l.matches("  Tiny-Chat-Q4_K_M\\.gguf: \\d+% of "
                + kb + ", \\d+(\\.\\d)? [KMG]?B/s(, \\S+ left)?"));
        assertThat(lines.get(lines.size() - 3)).startsWith("  Tiny-Chat-Q4_K_M.gguf: 100% of " + kb + ", ");
        assertThat(lines.get(lines.size() - 2)).isEqualTo("pulled " + kb + " into " + folder);
        assertThat(lines.getLast()).isEqualTo("served as model 'tiny-chat-q4_k_m' (a running server picks it up"
                + " without a restart)");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void anOllamaNameIsPulledFromTheRegistryAndServedByThatName() {
        registry.model("library/qwen3:4b").layer("model", gguf).layer("params", "{\"temperature\":0.6}").publish();

        assertThat(pull("qwen3:4b")).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.OK);

        Path folder = dir.resolve("models/qwen3-4b").toAbsolutePath();
        List<String> lines = lines();
        assertThat(lines.getFirst()).isEqualTo("pulling qwen3:4b from " + registry.endpoint());
        assertThat(lines.get(1)).startsWith("  1 file, ").endsWith(", into " + folder);
        assertThat(lines.getLast()).isEqualTo("served as model 'qwen3-4b' (a running server picks it up without a"
                + " restart)");
        assertThat(folder.resolve("model.yaml")).content().contains("qwen3:4b").contains("temperature: 0.6");
        out.reset();
        assertThat(pull("qwen3:4b")).isEqualTo(Main.OK);
        assertThat(lines()).contains("up to date: " + folder + " (nothing downloaded)");
    }

    @Test
    void anotherRegistryIsAskedOverPlainHttpOnlyWithInsecure() {
        registry.model("team/tiny:q4").layer("model", gguf).publish();
        String name = registry.host() + "/team/tiny:q4";

        // without it, https: to a port where nothing listens, so that the refusal is at once
        assertThat(pull("127.0.0.1:1/team/tiny:q4")).isEqualTo(Main.FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("rkllm-server pull: ").contains("https://127.0.0.1:1");
        err.reset();

        assertThat(pull(name, "--insecure")).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.OK);
        assertThat(lines()).contains("pulling " + name + " from http://" + registry.host());
        assertThat(dir.resolve("models/" + registry.host().replace(':', '-') + "-team-tiny-q4")).isDirectory();
    }

    @Test
    void aSecondPullSaysItIsUpToDate() {
        assertThat(pull("tiny/Tiny-Chat-GGUF")).isEqualTo(Main.OK);
        out.reset();

        assertThat(pull("tiny/Tiny-Chat-GGUF:Q4_K_M")).isEqualTo(Main.OK);

        assertThat(lines()).contains("up to date: " + dir.resolve("models/Tiny-Chat-Q4_K_M").toAbsolutePath()
                + " (nothing downloaded)");
    }

    @Test
    void failuresAreOneLineOnStandardErrorWithTheirExitCode() {
        assertThat(pull("tiny/Tiny-Chat-GGUF:Q2_K")).isEqualTo(Main.FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("rkllm-server pull: tiny/Tiny-Chat-GGUF has no"
                + " Q2_K quantisation; it has Q4_K_M, Q8_0 (pull tiny/Tiny-Chat-GGUF:Q4_K_M)\n");
        err.reset();

        assertThat(pull("../../etc/passwd")).isEqualTo(Main.BAD_CONFIG);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("rkllm-server pull: '..' and '.' are not names");
        err.reset();

        assertThat(pull()).isEqualTo(Main.BAD_CONFIG);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("rkllm-server pull: name one model:");
        assertThat(dir.resolve("models")).doesNotExist();
    }

    @Test
    void aPulledFileTheServerCannotServeIsRemovedAgainAndSaidSo() {
        hub.repo("noise/Noise-GGUF").file("Noise-Q4_K_M.gguf", "GGUF but nothing a model is made of".getBytes(
                StandardCharsets.UTF_8));

        assertThat(pull("noise/Noise-GGUF")).isEqualTo(Main.FAILED);

        Path file = dir.resolve("models/Noise-Q4_K_M/Noise-Q4_K_M.gguf").toAbsolutePath();
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("error: " + file + ": not served: not a usable GGUF")
                .endsWith("rkllm-server pull: " + file + " was downloaded but is not a model this server can serve"
                        + " (see above); it was removed\n");
        // nothing left to be taken for a model, and the next pull downloads again instead of saying "up to date"
        assertThat(dir.resolve("models/Noise-Q4_K_M")).doesNotExist();
        out.reset();
        err.reset();
        assertThat(pull("noise/Noise-GGUF")).isEqualTo(Main.FAILED);
        assertThat(lines()).noneMatch(l -> l.startsWith("up to date"));
    }

    @Test
    void aModelKeptFromBeingServedByItsModelYamlIsKeptAndSaidSo() throws Exception {
        Path folder = java.nio.file.Files.createDirectories(dir.resolve("models/Tiny-Chat-Q4_K_M"));
        Files.writeString(folder.resolve("model.yaml"), "context_length: many\n");

        assertThat(pull("tiny/Tiny-Chat-GGUF")).isEqualTo(Main.FAILED);

        Path file = folder.resolve("Tiny-Chat-Q4_K_M.gguf").toAbsolutePath();
        assertThat(err.toString(StandardCharsets.UTF_8)).endsWith("rkllm-server pull: " + file + " is there but not"
                + " served (see above)\n");
        // the download and the user's model.yaml stay: the file is good, the sidecar is the user's to mend
        assertThat(file).exists();
        assertThat(folder.resolve("model.yaml")).hasContent("context_length: many\n");
    }
}
