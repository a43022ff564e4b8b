package io.rkllm.server.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** The jar the server runs from: empty when it runs from a class directory (tests, an IDE). */
public final class ServerJar {
    private ServerJar() {
    }

    public static Optional<Path> file() {
        try {
            Path location = Path.of(ServerJar.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isRegularFile(location) ? Optional.of(location) : Optional.empty();
        } catch (Exception e) { // no code source, or not a file URI
            return Optional.empty();
        }
    }
}
