package io.rkllm.server.models;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Something discovery noticed about a file: a warning (the model is still served, or the file is simply
 * ignored) or an error (the model is skipped; a strict caller may exit instead).
 *
 * @param severity warning or error
 * @param path     the file or directory concerned (a sidecar, a {@code .rkllm} file, the models directory)
 * @param key      the sidecar key concerned, dotted for nested keys ({@code capabilities.thinking}), if any
 * @param message  what is wrong, in words a user can act on
 */
public record Problem(Severity severity, Path path, Optional<String> key, String message) {

    public enum Severity { WARNING, ERROR }

    public Problem {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(message, "message");
    }

    static Problem warning(Path path, String message) {
        return new Problem(Severity.WARNING, path, Optional.empty(), message);
    }

    static Problem warning(Path path, String key, String message) {
        return new Problem(Severity.WARNING, path, Optional.of(key), message);
    }

    static Problem error(Path path, String message) {
        return new Problem(Severity.ERROR, path, Optional.empty(), message);
    }

    static Problem error(Path path, String key, String message) {
        return new Problem(Severity.ERROR, path, Optional.of(key), message);
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    /** {@code path: key: message} (or {@code path: message}), ready for a log line. */
    @Override
    public String toString() {
        return key.map(k -> path + ": " + k + ": " + message).orElseGet(() -> path + ": " + message);
    }
}
