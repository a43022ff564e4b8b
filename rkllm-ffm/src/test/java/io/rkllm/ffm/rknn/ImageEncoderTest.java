package io.rkllm.ffm.rknn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RKNN binding driving the simulated librknnrt.so. */
class ImageEncoderTest {
    /** A small Qwen3-VL-like encoder: four outputs to interleave. */
    private static final Map<String, String> DEEPSTACK = Map.of("input_width", "64", "input_height", "48",
            "image_tokens", "16", "embed_dim", "32", "outputs", "4");

    @TempDir
    Path dir;

    @Test
    void anEncoderReportsItsInputOutputsAndVersions() {
        Path file = RknnSim.encoder(dir, "q3", DEEPSTACK);
        try (ImageEncoder encoder = RknnSim.runtime().openEncoder(file, CoreMask.AUTO)) {
            assertThat(encoder.input()).isEqualTo(new EncoderInput(64, 48, 3, TensorFormat.NHWC, TensorType.FLOAT16));
            assertThat(encoder.input().bytes()).isEqualTo(64 * 48 * 3);
            assertThat(encoder.shape()).isEqualTo(new EmbeddingShape(16, 32, 4));
            assertThat(encoder.shape().embeddingWidth()).isEqualTo(128);
            assertThat(encoder.outputs()).extracting(TensorAttr::name)
                    .containsExactly("image_embeds", "deepstack_0", "deepstack_1", "deepstack_2");
            assertThat(encoder.outputs().getFirst().dims()).containsExactly(16, 32);
            assertThat(encoder.outputs().getFirst().type()).isEqualTo(TensorType.FLOAT16);
            assertThat(encoder.version()).isEqualTo(new RknnVersion("2.3.2 (429f97ae6b@2025-04-09T09:09:27)", "0.9.8"));
        }
        assertThat(RknnSim.calls(file, "set_core_mask")).isEmpty();
        assertThat(RknnSim.calls(file, "destroy")).hasSize(1);
    }

    @Test
    void encodingHandsTheOutputsOverInterleavedTokenByTokenAndReleasesThemAll() {
        Path file = RknnSim.encoder(dir, "q3", DEEPSTACK);
        byte[] red = RknnSim.solid(64, 48, 255, 0, 0);
        float[] embeddings;
        try (ImageEncoder encoder = RknnSim.runtime().openEncoder(file, CoreMask.CORES_0_1_2)) {
            embeddings = encoder.encode(red);
            assertThat(embeddings).hasSize(16 * 4 * 32);
            assertThat(encoder.encode(red)).isEqualTo(embeddings);
            assertThat(encoder.encode(RknnSim.solid(64, 48, 0, 0, 255))).isNotEqualTo(embeddings);
        }
        JsonNode run = RknnSim.calls(file, "run").getFirst();
        assertThat(run.get("cores").asInt()).isEqualTo(3);
        assertThat(run.get("input_digest").asText()).isEqualTo(RknnSim.digest(red));
        assertThat(run.get("input_mean")).extracting(JsonNode::asDouble).containsExactly(255.0, 0.0, 0.0);
        // the simulator's digest of its outputs interleaved token-major: the binding did exactly that
        assertThat(run.get("embedding_digest").asText()).isEqualTo(RknnSim.digest(embeddings));
        JsonNode set = RknnSim.calls(file, "inputs_set").getFirst();
        assertThat(set.get("type").asText()).isEqualTo("UINT8");
        assertThat(set.get("fmt").asText()).isEqualTo("NHWC");
        assertThat(RknnSim.calls(file, "outputs_get")).allSatisfy(get -> {
            assertThat(get.get("want_float").asInt()).isEqualTo(1);
            assertThat(get.get("n_outputs").asInt()).isEqualTo(4);
        });
        assertThat(RknnSim.calls(file, "outputs_release")).hasSize(3)
                .allSatisfy(release -> assertThat(release.get("freed").asInt()).isEqualTo(4));
        assertThat(RknnSim.calls(file, "destroy").getFirst().get("live_outputs").asInt()).isZero();
    }

    @Test
    void aSingleOutputEncoderWithNchwInputAndThreeDimensionalOutput() {
        Path file = RknnSim.encoder(dir, "q25", Map.of("input_width", "28", "input_height", "56",
                "input_format", "NCHW", "output_dims", "3", "image_tokens", "4", "embed_dim", "8"));
        try (ImageEncoder encoder = RknnSim.runtime().openEncoder(file, CoreMask.AUTO)) {
            assertThat(encoder.input().width()).isEqualTo(28);
            assertThat(encoder.input().height()).isEqualTo(56);
            assertThat(encoder.input().format()).isEqualTo(TensorFormat.NCHW);
            assertThat(encoder.outputs().getFirst().dims()).containsExactly(1, 4, 8);
            assertThat(encoder.shape()).isEqualTo(new EmbeddingShape(4, 8, 1));
            float[] embeddings = encoder.encode(RknnSim.solid(28, 56, 10, 20, 30));
            assertThat(embeddings).hasSize(32);
        }
    }

    @Test
    void aPictureOfTheWrongSizeIsRefusedBeforeTheRuntime() {
        Path file = RknnSim.encoder(dir, "q3", DEEPSTACK);
        try (ImageEncoder encoder = RknnSim.runtime().openEncoder(file, CoreMask.AUTO)) {
            assertThatThrownBy(() -> encoder.encode(new byte[10])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("64x48x3");
        }
        assertThat(RknnSim.calls(file, "inputs_set")).isEmpty();
    }

    @Test
    void initFailuresCarryTheRuntimesCodeAndReason() {
        RknnRuntime runtime = RknnSim.runtime();
        assertThatThrownBy(() -> runtime.openEncoder(RknnSim.encoder(dir, "bad", Map.of("fault", "init_fail")),
                CoreMask.AUTO)).isInstanceOfSatisfying(RknnException.class, e -> {
                    assertThat(e.code()).isEqualTo(-1);
                    assertThat(e.getMessage()).contains("RKNN_ERR_FAIL").contains("simulated init failure");
                });
        assertThatThrownBy(() -> runtime.openEncoder(dir.resolve("missing.rknn"), CoreMask.AUTO))
                .isInstanceOf(RknnException.class).hasMessageContaining("failed to open");
        Path text = dir.resolve("model.rkllm");
        try {
            Files.writeString(text, "#rkllm-sim 1\n");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThatThrownBy(() -> runtime.openEncoder(text, CoreMask.AUTO))
                .isInstanceOfSatisfying(RknnException.class, e -> assertThat(e.code()).isEqualTo(-6));
    }

    @Test
    void noRoomOnTheNpuIsAnInitFailureUntilTheOtherEncoderCloses() {
        RknnRuntime runtime = RknnSim.runtime();
        Path full = RknnSim.encoder(dir, "full", Map.of("fault", "max_contexts=1"));
        try (ImageEncoder first = runtime.openEncoder(RknnSim.encoder(dir, "first", Map.of()), CoreMask.AUTO)) {
            assertThatThrownBy(() -> runtime.openEncoder(full, CoreMask.AUTO))
                    .isInstanceOfSatisfying(RknnException.class, e -> {
                        assertThat(e.code()).isEqualTo(-4);
                        assertThat(e.getMessage()).contains("failed to malloc npu memory");
                    });
        }
        runtime.openEncoder(full, CoreMask.AUTO).close();
    }

    @Test
    void aRunErrorIsAnExceptionAndLeavesNothingAllocated() {
        Path file = RknnSim.encoder(dir, "flaky", Map.of("image_tokens", "4", "embed_dim", "8", "input_width", "8",
                "input_height", "8", "fault", "run_error_after=1"));
        try (ImageEncoder encoder = RknnSim.runtime().openEncoder(file, CoreMask.AUTO)) {
            byte[] picture = RknnSim.solid(8, 8, 1, 2, 3);
            assertThat(encoder.encode(picture)).hasSize(32);
            assertThatThrownBy(() -> encoder.encode(picture)).isInstanceOfSatisfying(RknnException.class, e -> {
                assertThat(e.code()).isEqualTo(-1);
                assertThat(e.getMessage()).isEqualTo("rknn_run failed: RKNN_ERR_FAIL (-1)");
            });
        }
        assertThat(RknnSim.calls(file, "destroy").getFirst().get("live_outputs").asInt()).isZero();
    }

    @Test
    void aClosedEncoderRefusesWorkAndClosesOnce() {
        Path file = RknnSim.encoder(dir, "e", Map.of());
        ImageEncoder encoder = RknnSim.runtime().openEncoder(file, CoreMask.AUTO);
        encoder.close();
        encoder.close();
        assertThat(encoder.isClosed()).isTrue();
        assertThatThrownBy(() -> encoder.encode(new byte[448 * 448 * 3])).isInstanceOf(IllegalStateException.class);
        assertThat(RknnSim.calls(file, "destroy")).hasSize(1);
    }

    @Test
    void aLibraryWithoutTheCoreMaskFunctionServesOnTheDefaultCore() {
        SymbolLookup real = SymbolLookup.libraryLookup(RknnSim.library(), Arena.global());
        SymbolLookup trimmed = name -> name.equals("rknn_set_core_mask") ? Optional.empty() : real.find(name);
        RknnRuntime runtime = RknnRuntime.of(RknnSim.library(), RknnApi.bind(trimmed));
        assertThat(runtime.supports(RknnFunction.SET_CORE_MASK)).isFalse();
        Path file = RknnSim.encoder(dir, "e", Map.of("image_tokens", "2", "embed_dim", "2", "input_width", "4",
                "input_height", "4"));
        assertThatThrownBy(() -> runtime.openEncoder(file, CoreMask.CORES_0_1_2))
                .isInstanceOf(UnsupportedRknnFunctionException.class).hasMessageContaining("rknn_set_core_mask");
        assertThat(RknnSim.calls(file, "init")).isEmpty();
        try (ImageEncoder encoder = runtime.openEncoder(file, CoreMask.AUTO)) {
            assertThat(encoder.encode(RknnSim.solid(4, 4, 0, 0, 0))).hasSize(4);
        }
    }

    @Test
    void aLibraryWithoutARequiredFunctionIsRefused() {
        SymbolLookup real = SymbolLookup.libraryLookup(RknnSim.library(), Arena.global());
        SymbolLookup trimmed = name -> name.equals("rknn_outputs_release") ? Optional.empty() : real.find(name);
        assertThatThrownBy(() -> RknnApi.bind(trimmed)).isInstanceOf(UnsupportedRknnFunctionException.class)
                .hasMessageContaining("rknn_outputs_release");
    }

    @Test
    void shapesAreReadAsTheDemoReadsThem() {
        TensorAttr flat = new TensorAttr(0, List.of(196, 2048), "a", 196 * 2048, 0, TensorFormat.UNDEFINED,
                TensorType.FLOAT16);
        TensorAttr batched = new TensorAttr(1, List.of(1, 196, 2048), "b", 196 * 2048, 0, TensorFormat.UNDEFINED,
                TensorType.FLOAT16);
        assertThat(EmbeddingShape.of(List.of(flat, batched))).isEqualTo(new EmbeddingShape(196, 2048, 2));
        TensorAttr other = new TensorAttr(1, List.of(64, 3584), "c", 64 * 3584, 0, TensorFormat.UNDEFINED,
                TensorType.FLOAT16);
        assertThatThrownBy(() -> EmbeddingShape.of(List.of(flat, other))).isInstanceOf(RknnException.class)
                .hasMessageContaining("differ");
        TensorAttr odd = new TensorAttr(0, List.of(196, 2048, 2), "d", 196 * 2048 * 2, 0, TensorFormat.UNDEFINED,
                TensorType.FLOAT16);
        assertThatThrownBy(() -> EmbeddingShape.of(List.of(odd))).isInstanceOf(RknnException.class);
        assertThatThrownBy(() -> EmbeddingShape.of(List.of())).isInstanceOf(RknnException.class);
    }
}
