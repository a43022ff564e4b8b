package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which libllama is chosen, and why. */
class LlamaLibraryLocatorTest {
    @TempDir
    Path dir;

    private LlamaLibraryLocator locator(Map<String, String> env) throws IOException {
        return new LlamaLibraryLocator(env, "amd64", dir.resolve("cache"),
                List.of(Files.createDirectories(dir.resolve("usr-local-lib"))),
                List.of(Files.createDirectories(dir.resolve("usr-lib-x86_64-linux-gnu"))));
    }

    private Path touch(String relative) throws IOException {
        Path file = dir.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "not really a library");
        return file;
    }

    @Test
    void aConfiguredFileOrDirectoryWinsAndMustExist() throws IOException {
        touch("usr-local-lib/libllama.so");
        Path mine = touch("mine/libllama.so");
        LlamaLibrary file = locator(Map.of()).locate(Optional.of(mine));
        assertThat(file.path()).isEqualTo(mine);
        assertThat(file.origin()).isEqualTo(LlamaLibrary.Origin.CONFIGURED);
        assertThat(locator(Map.of()).locate(Optional.of(mine.getParent())).path()).isEqualTo(mine);
        assertThatThrownBy(() -> locator(Map.of()).locate(Optional.of(dir.resolve("nowhere/libllama.so"))))
                .isInstanceOf(LlamaException.class).hasMessageContaining("does not exist");
        assertThatThrownBy(() -> locator(Map.of()).locate(Optional.of(Files.createDirectories(dir.resolve("empty")))))
                .isInstanceOf(LlamaException.class).hasMessageContaining("has no libllama.so");
    }

    @Test
    void aUserBuiltLibraryComesBeforeDebiansWhichComesBeforeTheLoaderPath() throws IOException {
        Path onPath = touch("ld/libllama.so");
        Map<String, String> env = Map.of("LD_LIBRARY_PATH", "/nonexistent:" + onPath.getParent());
        assertThat(locator(env).locate(Optional.empty()).origin()).isEqualTo(LlamaLibrary.Origin.LOADER_PATH);
        Path debian = touch("usr-lib-x86_64-linux-gnu/libllama.so.0");
        LlamaLibrary chosen = locator(env).locate(Optional.empty());
        assertThat(chosen.path()).isEqualTo(debian);
        assertThat(chosen.origin()).isEqualTo(LlamaLibrary.Origin.DEBIAN);
        assertThat(chosen.reason()).contains("libllama0");
        Path user = touch("usr-local-lib/libllama.so");
        assertThat(locator(env).locate(Optional.empty()).path()).isEqualTo(user);
    }

    @Test
    void withNothingInstalledTheBundledLibraryIsExtractedOnceWithItsGgmlLibraries() throws IOException {
        LlamaLibrary first = locator(Map.of()).locate(Optional.empty());
        assertThat(first.origin()).isEqualTo(LlamaLibrary.Origin.BUNDLED);
        assertThat(first.reason()).contains("llama.cpp v0.5.0", "@node-llama-cpp/linux-x64 3.22.1");
        assertThat(first.path()).startsWith(dir.resolve("cache")).hasFileName("libllama.v0.5.0.so");
        long modified = Files.getLastModifiedTime(first.path()).toMillis();
        LlamaLibrary second = locator(Map.of()).locate(Optional.empty());
        assertThat(second.path()).isEqualTo(first.path());
        assertThat(Files.getLastModifiedTime(second.path()).toMillis()).isEqualTo(modified);
        BundledLlama bundle = BundledLlama.forArch("x86_64").orElseThrow();
        for (String file : bundle.files()) {
            try (var in = getClass().getClassLoader().getResourceAsStream(bundle.resource(file))) {
                assertThat(Files.readAllBytes(first.path().resolveSibling(file))).as(file)
                        .isEqualTo(in.readAllBytes());
            }
        }
        try (var files = Files.list(first.path().getParent())) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrderElementsOf(bundle.files());
        }
        try (var cache = Files.list(dir.resolve("cache"))) {
            assertThat(cache).as("no temporary directory left").containsExactly(first.path().getParent());
        }
    }

    @Test
    void anArchitectureWithoutABundledLibraryAndNothingInstalledIsSaidPlainly() {
        LlamaLibraryLocator riscv = new LlamaLibraryLocator(Map.of(), "riscv64", dir.resolve("cache"), List.of(),
                List.of());
        assertThatThrownBy(() -> riscv.locate(Optional.empty())).isInstanceOf(LlamaException.class)
                .hasMessageContaining("riscv64");
    }
}
