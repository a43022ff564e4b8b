package io.rkllm.llama;

/** A failure of libllama or of the binding, with a message that says what to do where it can. */
public class LlamaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LlamaException(String message) {
        super(message);
    }

    public LlamaException(String message, Throwable cause) {
        super(message, cause);
    }
}
