package io.rkllm.llama;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * llama.cpp build 4916 as de.kherud:llama 4.2.0 carries it (libjllama.so, on the test class path only): the oldest
 * layout generation the binding knows, opened once per JVM beside the bundled library (each through its own
 * dlopen handle, so their symbols never mix).
 */
final class Build4916 {
    static final String RESOURCE = "de/kherud/llama/Linux/%s/libjllama.so";
    private static final LlamaRuntime RUNTIME = open();

    private Build4916() {
    }

    static LlamaRuntime runtime() {
        return RUNTIME;
    }

    private static LlamaRuntime open() {
        String arch = LlamaLibraryLocator.normalise(System.getProperty("os.arch"));
        try (InputStream in = Build4916.class.getClassLoader().getResourceAsStream(RESOURCE.formatted(arch))) {
            if (in == null) {
                throw new IllegalStateException("de.kherud:llama has no libjllama.so for " + arch);
            }
            Path dir = Files.createDirectories(Path.of(System.getProperty("llama.test.dir",
                    System.getProperty("java.io.tmpdir") + "/llama-ffm-test"), "b4916"));
            Path file = Files.createTempFile(dir, "libjllama", ".so");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            file.toFile().deleteOnExit();
            return LlamaRuntime.open(new LlamaLibrary(file, LlamaLibrary.Origin.CONFIGURED, "de.kherud:llama 4.2.0"),
                    Optional.empty());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
