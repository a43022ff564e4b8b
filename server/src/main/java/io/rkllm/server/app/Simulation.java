package io.rkllm.server.app;

import io.rkllm.ffm.Abi;
import io.rkllm.ffm.SimulatedRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * {@code --simulate}: the simulated runtime library and the bundled simulated models, copied out of
 * the jar into a private directory. From there they are used exactly like a real library and real
 * model files.
 */
public final class Simulation implements AutoCloseable {
    private static final String MODELS = "/io/rkllm/server/simulate/models/";

    private final Path directory;

    public Simulation(Path directory) {
        this.directory = directory;
    }

    /**
     * In a new temporary directory, which the caller owns and deletes with {@link #close()} (a loaded library
     * may go: it stays mapped). One owner: two deleting the same tree at once would each miss what the other
     * removed first.
     */
    public static Simulation inTempDirectory() {
        try {
            return new Simulation(Files.createTempDirectory("rkllm-simulate-"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where the simulated runtimes and models are copied. */
    public Path directory() {
        return directory;
    }

    /** Deletes the directory and what was copied into it, as far as it can. */
    @Override
    public void close() {
        TemporaryDirectory.delete(directory);
    }

    public Optional<Path> library(Abi abi) {
        try {
            return SimulatedRuntime.extract(abi, directory.resolve("lib"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The simulated RKNN runtime (image encoders), beside the RKLLM one. */
    public Optional<Path> rknnLibrary() {
        try {
            return SimulatedRuntime.extractRknn(directory.resolve("lib"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path models() {
        Path target = directory.resolve("models");
        try (InputStream index = Simulation.class.getResourceAsStream(MODELS + "index.txt")) {
            if (index == null) {
                throw new IllegalStateException("the jar has no simulated models");
            }
            for (String entry : new String(index.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(String::strip).filter(l -> !l.isEmpty()).toList()) {
                Path file = target.resolve(entry);
                Files.createDirectories(file.getParent());
                try (InputStream in = Simulation.class.getResourceAsStream(MODELS + entry)) {
                    if (in == null) {
                        throw new IllegalStateException("missing simulated model resource " + entry);
                    }
                    Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
