package io.rkllm.server.models;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A {@code .rknn} beside a {@code .rkllm} makes a vision model, with its family's defaults or its sidecar's. */
class VisionDiscoveryTest {
    @TempDir
    Path models;

    private Path write(String relative, String content) throws IOException {
        Path file = models.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        return file;
    }

    private DiscoveryResult discover() {
        return TestDiscovery.standard().discover(models);
    }

    @Test
    void anEncoderBesideTheModelMakesAVisionModelWithItsFamilysDefaults() throws IOException {
        write("Qwen3-VL-2B/qwen3-vl-2b-instruct_w8a8_rk3588.rkllm", "x");
        Path encoder = write("Qwen3-VL-2B/qwen3-vl-2b_vision_rk3588.rknn", "x");
        write("Qwen3-1.7B/qwen3-1.7b_w8a8_rk3588.rkllm", "x");
        DiscoveryResult result = discover();
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        ModelDescriptor vl = result.models().stream().filter(m -> m.id().equals("qwen3-vl-2b")).findFirst()
                .orElseThrow();
        assertThat(vl.seesImages()).isTrue();
        VisionSpec v = vl.vision().orElseThrow();
        assertThat(v.encoder()).isEqualTo(encoder.toAbsolutePath());
        assertThat(v.imageStart()).isEqualTo("<|vision_start|>");
        assertThat(v.imageEnd()).isEqualTo("<|vision_end|>");
        assertThat(v.imageContent()).isEqualTo("<|image_pad|>");
        assertThat(v.imageWidth()).isEqualTo(448);
        assertThat(v.imageTokens()).isEqualTo(196);
        assertThat(v.maxImages()).isEqualTo(1);
        assertThat(v.baseDomainId()).isEqualTo(1);
        assertThat(vl.family()).isEqualTo("qwen3-vl");
        assertThat(vl.capabilities().thinking()).isFalse();
        ModelDescriptor text = result.models().stream().filter(m -> m.id().equals("qwen3-1.7b")).findFirst()
                .orElseThrow();
        assertThat(text.seesImages()).isFalse();
    }

    @Test
    void theSidecarSetsOrOverridesEveryVisionKey() throws IOException {
        write("mine/lm.rkllm", "x");
        write("mine/encoders/enc.rknn", "x");
        write("mine/model.yaml", """
                vision:
                  encoder: encoders/enc.rknn
                  image_start: "<img>"
                  image_end: "</img>"
                  image_content: "<IMG_CONTEXT>"
                  image_size: 392x448
                  image_tokens: 64
                  max_images: 3
                  base_domain_id: 2
                """);
        DiscoveryResult result = discover();
        assertThat(result.errors()).isEmpty();
        VisionSpec v = result.models().getFirst().vision().orElseThrow();
        assertThat(v.encoder().getFileName().toString()).isEqualTo("enc.rknn");
        assertThat(v.imageStart()).isEqualTo("<img>");
        assertThat(v.imageContent()).isEqualTo("<IMG_CONTEXT>");
        assertThat(v.imageWidth()).isEqualTo(392);
        assertThat(v.imageHeight()).isEqualTo(448);
        assertThat(v.imageTokens()).isEqualTo(64);
        assertThat(v.maxImages()).isEqualTo(3);
        assertThat(v.baseDomainId()).isEqualTo(2);
    }

    @Test
    void unknownTagsOrSeveralEncodersLeaveATextModelWithAWarning() throws IOException {
        write("SmolVLM/smolvlm_w8a8.rkllm", "x");
        write("SmolVLM/smolvlm_vision.rknn", "x");
        write("two/lm.rkllm", "x");
        write("two/a.rknn", "x");
        write("two/b.rknn", "x");
        DiscoveryResult result = discover();
        assertThat(result.errors()).isEmpty();
        assertThat(result.models()).allSatisfy(m -> assertThat(m.seesImages()).isFalse());
        assertThat(result.warnings()).anySatisfy(p -> assertThat(p.message()).contains("image tags"));
        assertThat(result.warnings()).anySatisfy(p -> assertThat(p.message()).contains("vision.encoder"));
    }

    @Test
    void visionCanBeTurnedOffAndAMissingEncoderIsAnError() throws IOException {
        write("qwen2.5-vl/lm.rkllm", "x");
        write("qwen2.5-vl/enc.rknn", "x");
        write("qwen2.5-vl/model.yaml", "vision: {enabled: false}\n");
        write("broken/lm.rkllm", "x");
        write("broken/model.yaml", "vision: {encoder: missing.rknn}\n");
        DiscoveryResult result = discover();
        assertThat(result.models()).extracting(ModelDescriptor::id).containsExactly("qwen2.5-vl");
        assertThat(result.models().getFirst().seesImages()).isFalse();
        assertThat(result.errors()).anySatisfy(p -> assertThat(p.message()).contains("missing.rknn"));
    }

    @Test
    void badVisionValuesAreErrorsNamingTheKey() throws IOException {
        write("m/lm.rkllm", "x");
        write("m/model.yaml", "vision: {image_size: huge, max_images: 0}\n");
        DiscoveryResult result = discover();
        assertThat(result.models()).isEmpty();
        assertThat(result.errors()).anySatisfy(p -> assertThat(p.key()).hasValue("vision.image_size"));
        assertThat(result.errors()).anySatisfy(p -> assertThat(p.key()).hasValue("vision.max_images"));
    }
}
