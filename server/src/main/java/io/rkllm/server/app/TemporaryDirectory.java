package io.rkllm.server.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removing a temporary directory this process made (the simulated runtime's copies, a local test server's files). */
public final class TemporaryDirectory {
    private TemporaryDirectory() {
    }

    /** Deletes {@code directory} and everything in it, as far as it can: what is left is the system's to clean. */
    public static void delete(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory: a file another process still writes, or one that vanished meanwhile
        }
    }
}
