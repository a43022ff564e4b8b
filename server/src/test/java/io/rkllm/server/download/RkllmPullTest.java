package io.rkllm.server.download;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.TestDiscovery;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pulls of the RK3588/RK3576 conversions people publish: several {@code .rkllm} files in one repository, the one for
 * this board's chip and runtime chosen, a vision model's image encoder with it, and the folder discovery reads.
 */
class RkllmPullTest {
    @TempDir
    Path models;

    private StandInHub hub;

    @BeforeEach
    void startHub() {
        hub = StandInHub.start();
    }

    @AfterEach
    void stopHub() {
        hub.close();
    }

    /** A simulated model file: discovery never reads a .rkllm file's bytes. */
    private static byte[] model(String what) {
        return ("#rkllm-sim 1\n# " + what + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private Puller puller(Board board) throws PullException {
        return new Puller(() -> Hub.fromEnvironment(Map.of("HF_ENDPOINT", hub.endpoint()), "test"),
                new ModelsDirectory(models, DiskSpace.SYSTEM, List.of(".rkllm", ".gguf")), board,
                new Puller.Settings(2, Duration.ZERO, Duration.ofSeconds(30)));
    }

    private static Board board(String chip, String runtime) {
        return new Board(Optional.of(chip), Optional.of(runtime));
    }

    private PullException failure(Board board, String model) {
        return catchThrowableOfType(PullException.class, () -> puller(board).pull(model, PullProgress.NONE));
    }

    @Test
    void theFileForTheBoardsChipAndRuntimeWithTheVisionEncoderForThatChip() throws Exception {
        hub.repo("conv/Qwen2.5-VL-3B-rkllm")
                .file("qwen2.5-vl-3b_w8a8_rk3588_1.2.1.rkllm", model("3588 1.2.1"))
                .file("qwen2.5-vl-3b_w8a8_rk3576_1.1.4.rkllm", model("3576 1.1.4"))
                .file("qwen2.5-vl-3b_w8a8_rk3576_1.2.1.rkllm", model("3576 1.2.1"))
                .file("qwen2.5-vl-3b_w8a8_rk3576_1.2.3.rkllm", model("3576 1.2.3"))
                .file("qwen2.5-vl-3b_vision_rk3588.rknn", model("encoder 3588"))
                .file("qwen2.5-vl-3b_vision_rk3576.rknn", model("encoder 3576"))
                .file("README.md", model("readme"));

        PullResult result = puller(board("rk3576", "1.2.2")).pull("conv/Qwen2.5-VL-3B-rkllm", PullProgress.NONE);

        Path folder = models.resolve("qwen2.5-vl-3b_w8a8_rk3576_1.2.1");
        assertThat(result.model()).isEqualTo(folder.resolve("qwen2.5-vl-3b_w8a8_rk3576_1.2.1.rkllm"));
        assertThat(Files.readString(folder.resolve("qwen2.5-vl-3b_vision_rk3576.rknn"))).contains("encoder 3576");
        try (var files = Files.list(folder)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted()).containsExactly(".pull.json",
                    "qwen2.5-vl-3b_vision_rk3576.rknn", "qwen2.5-vl-3b_w8a8_rk3576_1.2.1.rkllm");
        }
        DiscoveryResult found = TestDiscovery.standard().discover(models);
        assertThat(found.models()).extracting(ModelDescriptor::id).containsExactly("qwen2.5-vl-3b_w8a8_rk3576_1.2.1");
        assertThat(found.models().getFirst().seesImages()).isTrue();
    }

    @Test
    void w8a8IsPreferredAndATagChoosesAnother() throws Exception {
        hub.repo("conv/Qwen3-1.7B-RK3588-1.2.1")
                .file("Qwen3-1.7B_w8a8_rk3588.rkllm", model("w8a8"))
                .file("Qwen3-1.7B_w8a8_g128_rk3588.rkllm", model("w8a8 g128"))
                .file("Qwen3-1.7B_w4a16_rk3588.rkllm", model("w4a16"));

        assertThat(puller(board("rk3588", "1.2.1")).pull("conv/Qwen3-1.7B-RK3588-1.2.1", PullProgress.NONE).model()
                .getFileName()).hasToString("Qwen3-1.7B_w8a8_rk3588.rkllm");
        assertThat(puller(board("rk3588", "1.2.1")).pull("conv/Qwen3-1.7B-RK3588-1.2.1:w4a16", PullProgress.NONE)
                .model().getFileName()).hasToString("Qwen3-1.7B_w4a16_rk3588.rkllm");
    }

    @Test
    void severalFilesThatFitAreListedForTheUserToNameOne() {
        hub.repo("conv/Qwen2.5-3B-rk3588-1.1.4")
                .file("Qwen2.5-3B-rk3588-w8a8-opt-0-hybrid-ratio-0.0.rkllm", model("a"))
                .file("Qwen2.5-3B-rk3588-w8a8-opt-1-hybrid-ratio-0.5.rkllm", model("b"));

        PullException e = failure(board("rk3588", "1.1.4"), "conv/Qwen2.5-3B-rk3588-1.1.4");

        assertThat(e.kind()).isEqualTo(PullException.Kind.AMBIGUOUS);
        assertThat(e.getMessage()).isEqualTo("2 files of conv/Qwen2.5-3B-rk3588-1.1.4 fit this board:"
                + " [Qwen2.5-3B-rk3588-w8a8-opt-0-hybrid-ratio-0.0.rkllm,"
                + " Qwen2.5-3B-rk3588-w8a8-opt-1-hybrid-ratio-0.5.rkllm]; name one:"
                + " conv/Qwen2.5-3B-rk3588-1.1.4/Qwen2.5-3B-rk3588-w8a8-opt-0-hybrid-ratio-0.0.rkllm");
    }

    @Test
    void aRepositoryForAnotherChipOrRuntimeLineIsRefusedWithWhatItHas() throws Exception {
        hub.repo("conv/Gemma-3-1B-rk3588-1.1.4").file("gemma-3-1b_w8a8_rk3588.rkllm", model("gemma"));

        PullException chip = failure(board("rk3576", "1.2.1"), "conv/Gemma-3-1B-rk3588-1.1.4");
        assertThat(chip.kind()).isEqualTo(PullException.Kind.NOT_FOUND);
        assertThat(chip.getMessage()).isEqualTo("conv/Gemma-3-1B-rk3588-1.1.4 has no .rkllm file for RK3576 (this"
                + " board): its files are for RK3588; look for a conversion for RK3576");

        PullException runtime = failure(board("rk3588", "1.2.1"), "conv/Gemma-3-1B-rk3588-1.1.4");
        assertThat(runtime.getMessage()).isEqualTo("conv/Gemma-3-1B-rk3588-1.1.4's .rkllm files were converted for"
                + " runtime 1.1.x, and this board's runtime is 1.2.1: look for a conversion for 1.2 (or name the file"
                + " to pull it anyway)");

        // named in full, it is pulled anyway
        assertThat(puller(board("rk3588", "1.2.1")).pull("conv/Gemma-3-1B-rk3588-1.1.4/gemma-3-1b_w8a8_rk3588.rkllm",
                PullProgress.NONE).model()).exists();
    }

    @Test
    void aContextLengthOnlyTheRepositorysNameStatesIsWrittenInModelYaml() throws Exception {
        hub.repo("conv/Qwen2.5-3B-Instruct-rk3588-8k").file("qwen2.5-3b-instruct_w8a8_rk3588.rkllm", model("8k"));

        PullResult result = puller(board("rk3588", "1.2.1")).pull("conv/Qwen2.5-3B-Instruct-rk3588-8k",
                PullProgress.NONE);

        assertThat(Files.readString(result.folder().resolve("model.yaml"))).isEqualTo("# written by rkllm-server pull:"
                + " the context length conv/Qwen2.5-3B-Instruct-rk3588-8k's name states\ncontext_length: 8192\n");
        ModelDescriptor m = TestDiscovery.standard().discover(models).models().getFirst();
        assertThat(m.contextLength()).isEqualTo(8192);
        assertThat(m.source()).isEqualTo(ModelDescriptor.SOURCE_SIDECAR);
    }

    @Test
    void theRepositorysOwnModelYamlComesWithTheModelAndAnEditedOneIsKept() throws Exception {
        hub.repo("conv/Qwen3-4B-rk3588").file("qwen3-4b_w8a8_rk3588.rkllm", model("qwen3"))
                .file("model.yaml", "context_length: 16k\n".getBytes(StandardCharsets.UTF_8));

        PullResult result = puller(board("rk3588", "1.2.1")).pull("conv/Qwen3-4B-rk3588", PullProgress.NONE);

        assertThat(Files.readString(result.folder().resolve("model.yaml"))).isEqualTo("context_length: 16k\n");
        Files.writeString(result.folder().resolve("model.yaml"), "context_length: 4k\n");

        puller(board("rk3588", "1.2.1")).pull("conv/Qwen3-4B-rk3588", PullProgress.NONE);

        assertThat(Files.readString(result.folder().resolve("model.yaml"))).isEqualTo("context_length: 4k\n");
    }

    @Test
    void offABoardEveryChipFitsAndTheDefaultStillDecides() throws Exception {
        hub.repo("conv/TinyLlama-rk3588").file("tinyllama_w8a8_rk3588.rkllm", model("t"));

        assertThat(puller(Board.UNKNOWN).pull("conv/TinyLlama-rk3588", PullProgress.NONE).model().getFileName())
                .hasToString("tinyllama_w8a8_rk3588.rkllm");
    }

    @Test
    void theChipOfADeviceTree() throws Exception {
        Path compatible = models.resolve("compatible");
        Files.write(compatible, "xunlong,orangepi-5-plus\0rockchip,rk3588\0".getBytes(StandardCharsets.US_ASCII));
        assertThat(Board.platformOf(compatible)).contains("rk3588");
        Files.write(compatible, "radxa,rock-4d\0rockchip,rk3576\0".getBytes(StandardCharsets.US_ASCII));
        assertThat(Board.platformOf(compatible)).contains("rk3576");
        Files.write(compatible, "qemu,virt\0".getBytes(StandardCharsets.US_ASCII));
        assertThat(Board.platformOf(compatible)).isEmpty();
        assertThat(Board.platformOf(models.resolve("missing"))).isEmpty();
    }
}
