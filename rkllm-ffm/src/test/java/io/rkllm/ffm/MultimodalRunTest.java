package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** RKLLM_INPUT_MULTIMODAL through the binding: what the simulated runtime of each ABI received. */
class MultimodalRunTest {
    private static final ImageTags QWEN = new ImageTags("<|vision_start|>", "<|vision_end|>", "<|image_pad|>");
    private static final int WIDTH = 16;
    private static final int TOKENS = 6;

    @TempDir
    Path dir;

    private Path visionModel() {
        return Sim.model(dir, "vl", Map.of("image_embed_dim", String.valueOf(WIDTH), "reply_tokens", "4"));
    }

    private Model load(Abi abi, Path file, Optional<ImageTags> tags) {
        RkllmRuntime runtime = Sim.runtime(abi);
        ModelParams params = Sim.params(runtime, file, 2048);
        return runtime.load(tags.map(params::withImageTags).orElse(params));
    }

    private static float[] embedding(int seed) {
        float[] values = new float[TOKENS * WIDTH];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) Math.sin(seed * 1000 + i);
        }
        return values;
    }

    /** FNV-1a 64 over the floats' little-endian bytes, as the simulated runtime's trace shows it. */
    static String digest(float[] values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(values);
        long hash = 0xcbf29ce484222325L;
        for (byte b : bytes.array()) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return HexFormat.of().toHexDigits(hash);
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void oneImageReachesTheModelWithItsTokensAndTags(Abi abi) {
        Path file = visionModel();
        float[] image = embedding(1);
        try (Model model = load(abi, file, Optional.of(QWEN))) {
            TokenEvent end = model.run(RunInput.user("<image>What is this?", true),
                    ImageInput.of(image, TOKENS, 448, 392), new Sim.Collector(), new RunControl());
            TokenEvent.Finished finished = (TokenEvent.Finished) end;
            assertThat(model.kvCacheSizes()[0])
                    .isEqualTo(finished.perf().prefillTokens() + finished.perf().generateTokens());
        }
        JsonNode run = Sim.calls(file, "run").getFirst();
        assertThat(run.get("input_type").asInt()).isEqualTo(3);
        assertThat(run.get("prompt").asText()).isEqualTo("<image>What is this?");
        JsonNode images = run.get("images");
        assertThat(images.get("n_image").asInt()).isEqualTo(1);
        assertThat(images.get("n_image_tokens").asInt()).isEqualTo(TOKENS);
        assertThat(images.get("image_width").asInt()).isEqualTo(448);
        assertThat(images.get("image_height").asInt()).isEqualTo(392);
        assertThat(images.get("floats_read").asInt()).isEqualTo(TOKENS * WIDTH);
        assertThat(images.get("digests").get(0).asText()).isEqualTo(digest(image));
        assertThat(images.get("image_content").asText()).isEqualTo("<|image_pad|>");
        assertThat(run.get("input_tokens").asInt()).isEqualTo(TOKENS);
        assertThat(run.get("prefilled_text").asText())
                .contains("<|vision_start|>" + "<|image_pad|>".repeat(TOKENS) + "<|vision_end|>What is this?");
        if (abi == Abi.V1_2) {
            JsonNode init = Sim.calls(file, "init").getFirst();
            assertThat(init.get("img_start").asText()).isEqualTo("<|vision_start|>");
            assertThat(init.get("img_content").asText()).isEqualTo("<|image_pad|>");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void twoImagesArriveInOrder(Abi abi) {
        Path file = visionModel();
        float[] first = embedding(2);
        float[] second = embedding(3);
        try (Model model = load(abi, file, Optional.of(QWEN))) {
            TokenEvent end = model.run(RunInput.user("<image>\n<image>\nCompare them.", false),
                    new ImageInput(List.of(first, second), TOKENS, 448, 448, Optional.empty()), new Sim.Collector(),
                    new RunControl());
            assertThat(end).isInstanceOf(TokenEvent.Finished.class);
        }
        JsonNode images = Sim.calls(file, "run").getFirst().get("images");
        assertThat(images.get("n_image").asInt()).isEqualTo(2);
        assertThat(images.get("digests")).extracting(JsonNode::asText).containsExactly(digest(first), digest(second));
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aPlaceholderCountOtherThanTheImageCountFailsTheRun(Abi abi) {
        Path file = visionModel();
        try (Model model = load(abi, file, Optional.of(QWEN))) {
            TokenEvent end = model.run(RunInput.user("<image><image>Two?", true), ImageInput.of(embedding(4), TOKENS,
                    448, 448), new Sim.Collector(), new RunControl());
            assertThat(end).isInstanceOf(TokenEvent.Failed.class);
            assertThat(model.kvCacheSizes()[0]).isZero();
        }
        assertThat(Sim.calls(file, "run").getFirst().get("error").asText())
                .isEqualTo("the prompt has 2 <image> tag(s) but n_image is 1");
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aTextModelRefusesImages(Abi abi) {
        Path file = Sim.model(dir, "text", Map.of());
        try (Model model = load(abi, file, Optional.of(QWEN))) {
            TokenEvent end = model.run(RunInput.user("<image>Hi", false), ImageInput.of(embedding(5), TOKENS, 448,
                    448), new Sim.Collector(), new RunControl());
            assertThat(end).isInstanceOf(TokenEvent.Failed.class);
        }
        assertThat(Sim.calls(file, "run").getFirst().get("error").asText()).contains("takes no image input");
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void perRunTagsGoWithTheRequestOn13AndAreRefusedOn12(Abi abi) {
        Path file = visionModel();
        ImageTags intern = new ImageTags("<img>", "</img>", "<IMG_CONTEXT>");
        ImageInput image = ImageInput.of(embedding(6), TOKENS, 448, 448).withTags(intern);
        try (Model model = load(abi, file, Optional.of(QWEN))) {
            if (abi == Abi.V1_2) {
                assertThatThrownBy(() -> model.run(RunInput.user("<image>Hi", false), image, new Sim.Collector(),
                        new RunControl())).isInstanceOf(UnsupportedOperationException.class)
                        .hasMessageContaining("at init");
                assertThat(Sim.calls(file, "run")).isEmpty();
            } else {
                model.run(RunInput.user("<image>Hi", false), image, new Sim.Collector(), new RunControl());
                JsonNode images = Sim.calls(file, "run").getFirst().get("images");
                assertThat(images.get("image_start").asText()).isEqualTo("<img>");
                assertThat(images.get("image_content").asText()).isEqualTo("<IMG_CONTEXT>");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void withoutAnyTagsTheBindingRefusesBeforeCallingTheRuntime(Abi abi) {
        Path file = visionModel();
        try (Model model = load(abi, file, Optional.empty())) {
            assertThat(model.params().imageTags()).isEmpty();
            assertThatThrownBy(() -> model.run(RunInput.user("<image>Hi", false), ImageInput.of(embedding(7), TOKENS,
                    448, 448), new Sim.Collector(), new RunControl())).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("image tags");
        }
        assertThat(Sim.calls(file, "run")).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void theLibraryDefaultsHaveNoImageTags(Abi abi) {
        assertThat(Sim.runtime(abi).defaultParams().imageTags()).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void imagesOfDifferentSizesAreRefused() {
        assertThatThrownBy(() -> new ImageInput(List.of(new float[12], new float[18]), 6, 448, 448, Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ImageInput.of(new float[13], 6, 448, 448))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ImageInput.of(new float[12], 6, 448, 448).embeddingWidth()).isEqualTo(2);
    }
}
