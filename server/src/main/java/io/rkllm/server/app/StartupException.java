package io.rkllm.server.app;

/** A startup failure that is not a configuration error: exit code 1 with this message. */
public final class StartupException extends RuntimeException {
    public StartupException(String message) {
        super(message);
    }
}
