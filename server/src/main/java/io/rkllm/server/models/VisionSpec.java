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
 * @param imageStart the tag before an image's tokens ({@code <|vision_start|>} for Qwen-VL)
 * @param imageEnd the tag after them
 * @param imageContent the tag each image token stands for
 * @param imageWidth the encoder's input width, expected
 * @param imageHeight the encoder's input height, expected
 * @param imageTokens tokens per image, expected
 * @param maxImages the most pictures one request may show the model
 * @param baseDomainId the NPU memory domain the language model is initialised in (RKLLM's {@code base_domain_id};
 *                     Rockchip's demo uses 1 beside an encoder)
 * @param profile the vision profile whose defaults apply ({@code qwen-vl}, {@code internvl}, ... or
 *                {@code generic})
 * @param encoderBytes the encoder file's size (0 when it could not be read), for the estimate of its memory
 */
public record VisionSpec(Path encoder, String imageStart, String imageEnd, String imageContent, int imageWidth,
                         int imageHeight, int imageTokens, int maxImages, int baseDomainId, String profile,
                         long encoderBytes) {

    public VisionSpec {
        Objects.requireNonNull(encoder, "encoder");
        Objects.requireNonNull(imageStart, "imageStart");
        Objects.requireNonNull(imageEnd, "imageEnd");
        Objects.requireNonNull(imageContent, "imageContent");
        Objects.requireNonNull(profile, "profile");
        if (imageWidth <= 0 || imageHeight <= 0 || imageTokens <= 0 || maxImages <= 0 || baseDomainId < 0) {
            throw new IllegalArgumentException("image size, tokens and max images must be positive");
        }
    }
}
