package io.rkllm.ffm;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The images of one multimodal run ({@code RKLLM_INPUT_MULTIMODAL}): the encoder's output per image,
 * in the order of the {@code <image>} placeholders of the run's prompt (the runtime requires one
 * placeholder per image). The arrays are copied into native memory when the run starts and are not
 * copied before: do not change them while a run uses them.
 *
 * @param embeddings one array per image, each {@code imageTokens x embedding width} floats, token-major,
 *                   all of the same length (the width is what the model expects per image token)
 * @param imageTokens tokens per image (the encoder's; {@code n_image_tokens})
 * @param imageWidth the encoder's input width the image was resized to (the runtime's mrope positions)
 * @param imageHeight the encoder's input height
 * @param tags this run's tags (ABI 1.3); empty = the model's ({@link ModelParams#imageTags()}). On ABI 1.2
 *             the tags are fixed at init, and other ones here are refused
 */
public record ImageInput(List<float[]> embeddings, int imageTokens, int imageWidth, int imageHeight,
                         Optional<ImageTags> tags) {

    public ImageInput {
        embeddings = List.copyOf(embeddings);
        Objects.requireNonNull(tags, "tags");
        if (embeddings.isEmpty()) {
            throw new IllegalArgumentException("a multimodal run needs at least one image");
        }
        if (imageTokens <= 0) {
            throw new IllegalArgumentException("imageTokens must be positive, not " + imageTokens);
        }
        int length = embeddings.getFirst().length;
        for (float[] image : embeddings) {
            if (image.length != length || length == 0 || length % imageTokens != 0) {
                throw new IllegalArgumentException("every image needs the same non-zero number of floats, a multiple"
                        + " of imageTokens " + imageTokens + " (got " + image.length + " and " + length + ")");
            }
        }
    }

    /** One image with the model's tags. */
    public static ImageInput of(float[] embedding, int imageTokens, int imageWidth, int imageHeight) {
        return new ImageInput(List.of(embedding), imageTokens, imageWidth, imageHeight, Optional.empty());
    }

    public ImageInput withTags(ImageTags value) {
        return new ImageInput(embeddings, imageTokens, imageWidth, imageHeight, Optional.of(value));
    }

    /** Floats per image token. */
    public int embeddingWidth() {
        return embeddings.getFirst().length / imageTokens;
    }

    /** Floats of all images together (what the runtime reads). */
    public long totalFloats() {
        return (long) embeddings.size() * embeddings.getFirst().length;
    }
}
