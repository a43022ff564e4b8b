package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A library the system loader refuses is a LlamaException naming the file and the likely fix: for the bundled build,
 * a system older than the one it was built for (the JDK does not pass on dlopen's reason).
 */
class UnloadableLibraryTest {
    @TempDir
    Path dir;

    private Path notALibrary() throws IOException {
        return Files.writeString(dir.resolve("libllama.v0.5.0.so"), "not an ELF file\n");
    }

    @Test
    void theBundledBuildThatDoesNotLoadNamesTheSystemItNeeds() throws IOException {
        Path file = notALibrary();
        LlamaLibrary bundled = new LlamaLibrary(file, LlamaLibrary.Origin.BUNDLED, "llama.cpp bundled in the jar");
        assertThatThrownBy(() -> LlamaRuntime.open(bundled, Optional.empty()))
                .isInstanceOf(LlamaException.class).hasMessageContaining(file.toString())
                .hasMessageContaining("glibc 2.34").hasMessageContaining("engines.llama.library");
    }

    @Test
    void anotherLibraryThatDoesNotLoadSaysWhatMayBeWrong() throws IOException {
        Path file = notALibrary();
        LlamaLibrary configured = new LlamaLibrary(file, LlamaLibrary.Origin.CONFIGURED, "engines.llama.library");
        assertThatThrownBy(() -> LlamaRuntime.open(configured, Optional.empty()))
                .isInstanceOf(LlamaException.class).hasMessageContaining(file.toString())
                .hasMessageContaining("built for another system, or one whose dependencies are missing")
                .hasMessageNotContaining("glibc");
    }
}
