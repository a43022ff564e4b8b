package io.rkllm.server.engine.contract;

import java.util.Objects;

/**
 * One picture of a run, in the order of the prompt's {@code <image>} placeholders.
 *
 * @param key what the picture is (its content digest): embeddings are cached under it, per model
 * @param pixels the picture as the encoder takes it, asked for only when its embedding is not cached
 */
public record PromptImage(String key, Pixels pixels) {

    public PromptImage {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(pixels, "pixels");
    }

    /** The picture, fitted to the encoder's input. */
    @FunctionalInterface
    public interface Pixels {
        /** RGB bytes, row after row, {@code width x height x 3}; throws when the picture cannot be decoded. */
        byte[] rgb(int width, int height);
    }
}
