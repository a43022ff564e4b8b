package io.rkllm.server.models;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What makes a model a vision-language model: its image encoder ({@code .rknn}, run by the RKNN runtime) and
 * how the language model takes the encoder's output. From the sidecar's {@code vision:} keys, else the family's
 * defaults ({@link VisionProfiles}). The encoder's input size and tokens per image are read from the {@code .rknn}
 * when it loads; the values here serve before that (planning, context estimates) and are checked then.
 *
 * @param encoder the {@code .rknn} file
 * @param encoderBytes the encoder file's size (0 when it could not be read), for the estimate of its memory
 * @param profile the vision profile whose defaults apply ({@code qwen-vl}, {@code internvl}, ... or
 *                {@code generic})
 * @param tags how the language model's prompt marks a picture
 * @param expected what the encoder is expected to take and give, until it loads
 * @param maxImages the most pictures one request may show the model
 * @param baseDomainId the NPU memory domain the language model is initialised in (RKLLM's {@code base_domain_id};
 *                     Rockchip's demo uses 1 beside an encoder)
 */
public record VisionSpec(Path encoder, long encoderBytes, String profile, Tags tags, Expected expected,
                         int maxImages, int baseDomainId) {

    /**
     * @param start the tag before an image's tokens ({@code <|vision_start|>} for Qwen-VL)
     * @param end the tag after them
     * @param content the tag each image token stands for
     */
    public record Tags(String start, String end, String content) {
        public Tags {
            Objects.requireNonNull(start, "start");
            Objects.requireNonNull(end, "end");
            Objects.requireNonNull(content, "content");
        }
    }

    /**
     * @param width the encoder's input width
     * @param height its input height
     * @param tokens tokens per image
     */
    public record Expected(int width, int height, int tokens) {
        public Expected {
            if (width <= 0 || height <= 0 || tokens <= 0) {
                throw new IllegalArgumentException("image size and tokens must be positive");
            }
        }
    }

    public VisionSpec {
        Objects.requireNonNull(encoder, "encoder");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(tags, "tags");
        Objects.requireNonNull(expected, "expected");
        if (maxImages <= 0 || baseDomainId < 0) {
            throw new IllegalArgumentException("max images must be positive, the base domain not negative");
        }
    }

    public String imageStart() {
        return tags.start();
    }

    public String imageEnd() {
        return tags.end();
    }

    public String imageContent() {
        return tags.content();
    }

    public int imageWidth() {
        return expected.width();
    }

    public int imageHeight() {
        return expected.height();
    }

    public int imageTokens() {
        return expected.tokens();
    }
}
