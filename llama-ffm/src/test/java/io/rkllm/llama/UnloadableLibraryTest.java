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
 * the OpenMP runtime a minimal system lacks (the JDK does not pass on dlopen's reason).
 */
class UnloadableLibraryTest {
    @TempDir
    Path dir;

    private Path notALibrary() throws IOException {
        return Files.writeString(dir.resolve("libjllama.so"), "not an ELF file\n");
    }

    @Test
    void theBundledBuildThatDoesNotLoadNamesLibgomp() throws IOException {
        Path file = notALibrary();
        LlamaLibrary bundled = new LlamaLibrary(file, LlamaLibrary.Origin.BUNDLED, "bundled in de.kherud:llama");
        assertThatThrownBy(() -> LlamaRuntime.open(bundled, Optional.empty()))
                .isInstanceOf(LlamaException.class).hasMessageContaining(file.toString())
                .hasMessageContaining("sudo apt install libgomp1");
    }

    @Test
    void anotherLibraryThatDoesNotLoadSaysWhatMayBeWrong() throws IOException {
        Path file = notALibrary();
        LlamaLibrary configured = new LlamaLibrary(file, LlamaLibrary.Origin.CONFIGURED, "engines.llama.library");
        assertThatThrownBy(() -> LlamaRuntime.open(configured, Optional.empty()))
                .isInstanceOf(LlamaException.class).hasMessageContaining(file.toString())
                .hasMessageContaining("built for another system, or one whose dependencies are missing")
                .hasMessageNotContaining("libgomp1");
    }
}
