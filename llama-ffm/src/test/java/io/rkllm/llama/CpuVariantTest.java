package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which of a build's CPU backends ggml picked, as {@code doctor} and the start banner say it. */
class CpuVariantTest {
    @TempDir
    Path dir;

    @Test
    void theVariantIsTheMappedCpuBackendsName() throws IOException {
        Path maps = dir.resolve("maps");
        Files.writeString(maps, """
                7f00 r-xp 00000000 08:01 1 /opt/llama/libllama.so
                7f10 r-xp 00000000 08:01 2 /opt/llama/libggml-cpu-zen4.so
                7f20 r--p 00001000 08:01 2 /opt/llama/libggml-cpu-zen4.so
                """);
        assertThat(LibraryInfo.cpuVariant(maps)).contains("zen4");
        Files.writeString(maps, "7f00 r-xp 00000000 08:01 1 /usr/lib/libggml-cpu.so\n");
        assertThat(LibraryInfo.cpuVariant(maps)).as("one CPU backend, no variants").isEmpty();
        assertThat(LibraryInfo.cpuVariant(dir.resolve("absent"))).isEmpty();
    }

    @Test
    void aBuildWithVariantsNamesTheOneItLoaded() throws IOException {
        LibraryInfo info = TestLlama.runtime().info();
        Path folder = info.library().path().getParent();
        List<String> variants;
        try (Stream<Path> files = Files.list(folder)) {
            variants = files.map(p -> p.getFileName().toString()).filter(f -> f.startsWith("libggml-cpu-"))
                    .map(f -> f.substring("libggml-cpu-".length(), f.length() - 3)).toList();
        }
        if (variants.isEmpty()) {
            assertThat(info.cpuVariant()).isEmpty();
        } else {
            assertThat(info.cpuVariant()).get().isIn(variants);
        }
    }
}
