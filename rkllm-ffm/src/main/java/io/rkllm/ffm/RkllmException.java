package io.rkllm.ffm;

/** A call into the RKLLM runtime failed; the message says which call and how. */
public class RkllmException extends RuntimeException {
    private final int code;

    public RkllmException(String message, int code) {
        super(message);
        this.code = code;
    }

    public RkllmException(String message) {
        this(message, -1);
    }

    public RkllmException(String message, Throwable cause) {
        super(message, cause);
        this.code = -1;
    }

    /** The runtime's return code, or -1 when the failure did not come from a return code. */
    public int code() {
        return code;
    }
}
