package io.rkllm.server.engine;

/** A model could not be loaded (init failed, timed out, or the server is stopping). */
public final class ModelLoadException extends RuntimeException {
    public ModelLoadException(String message, Throwable cause) {
        super(message, cause);
    }

    public ModelLoadException(String message) {
        super(message);
    }
}
