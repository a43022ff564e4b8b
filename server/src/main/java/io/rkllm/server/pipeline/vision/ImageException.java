package io.rkllm.server.pipeline.vision;

/**
 * A picture the server will not use: broken, too large, or of a format it does not read. The message is for the
 * client; {@link #code()} is the error code it gets ({@code invalid_image}, {@code image_too_large},
 * {@code unsupported_image_format}).
 */
public final class ImageException extends RuntimeException {
    public static final String INVALID = "invalid_image";
    public static final String TOO_LARGE = "image_too_large";
    public static final String UNSUPPORTED = "unsupported_image_format";

    private final String code;

    public ImageException(String code, String message) {
        super(message);
        this.code = code;
    }

    public String code() {
        return code;
    }
}
