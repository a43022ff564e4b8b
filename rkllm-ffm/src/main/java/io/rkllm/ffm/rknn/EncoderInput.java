package io.rkllm.ffm.rknn;

/**
 * The encoder's input: one image of {@code width x height} pixels. {@link ImageEncoder#encode} takes
 * it as RGB bytes in NHWC order ({@code width * height * channels} bytes, row after row), whatever
 * the model's own {@code format} and {@code type} (the runtime converts, and applies the
 * normalisation baked into the model at export).
 */
public record EncoderInput(int width, int height, int channels, TensorFormat format, TensorType type) {

    /** The bytes {@link ImageEncoder#encode} expects. */
    public int bytes() {
        return width * height * channels;
    }
}
