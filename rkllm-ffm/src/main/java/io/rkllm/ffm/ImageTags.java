package io.rkllm.ffm;

import java.util.Objects;

/**
 * The tags the runtime puts around an image's tokens when it expands an {@code <image>} placeholder:
 * {@code start + content x n_image_tokens + end}. They depend on the model family (Qwen-VL:
 * {@code <|vision_start|>}, {@code <|vision_end|>}, {@code <|image_pad|>}) and nothing in the model file
 * tells them; ABI 1.2 takes them at init ({@code RKLLMParam.img_*}), ABI 1.3 with each request.
 * Empty strings are valid (DeepSeekOCR has no start and end tags).
 */
public record ImageTags(String start, String end, String content) {
    public ImageTags {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
        Objects.requireNonNull(content, "content");
    }
}
