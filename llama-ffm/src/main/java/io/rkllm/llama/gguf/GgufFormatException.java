package io.rkllm.llama.gguf;

/** A file that is not a GGUF file, or a damaged or truncated one; the message says what and where. */
public final class GgufFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public GgufFormatException(String message) {
        super(message);
    }
}
