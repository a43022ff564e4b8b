package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The llama.cpp the build copies into the jar from npm's packages is the one each BUNDLE list names, file for file,
 * for the architecture it says (a new package version with other file names fails here, not on a user's machine).
 */
class BundledLlamaTest {

    @ParameterizedTest
    @CsvSource({"x86_64, 62, linux-x64", "aarch64, 183, linux-arm64"})
    void eachListNamesExactlyTheLibrariesTheBuildCopiedForItsArchitecture(String arch, int elfMachine, String npm)
            throws IOException, URISyntaxException {
        BundledLlama bundle = BundledLlama.forArch(arch).orElseThrow();
        assertThat(bundle.release()).isEqualTo("v0.5.0");
        assertThat(bundle.origin()).isEqualTo("@node-llama-cpp/" + npm + " 3.22.1");
        assertThat(bundle.files()).first().isEqualTo(bundle.library());
        Path dir = Path.of(getClass().getClassLoader().getResource(bundle.resource("BUNDLE")).toURI()).getParent();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(f -> !f.equals("BUNDLE")))
                    .containsExactlyInAnyOrderElementsOf(bundle.files());
        }
        for (String file : bundle.files()) {
            if (file.endsWith(".so")) {
                assertThat(elfMachine(dir.resolve(file))).as(file).isEqualTo(elfMachine);
            }
        }
        assertThat(bundle.files()).anyMatch(f -> f.startsWith("libggml-cpu-"))
                .contains("libggml-base.so", "LICENSE");
    }

    @Test
    void theArmBundleHasTheDotProductBuildsTheRk3588sCortexA76Cores() {
        // armv8.2 with dot product (and fp16) is what the A76 and A55 cores of the RK3588 and RK3576 run
        assertThat(BundledLlama.forArch("aarch64").orElseThrow().files())
                .contains("libggml-cpu-armv8.2_1.so", "libggml-cpu-armv8.2_2.so", "libggml-cpu-armv8.0_1.so");
    }

    @Test
    void aListWithAPathOrWithoutItsLibraryIsRefused() {
        assertThatThrownBy(() -> BundledLlama.parse("x86_64", "release v1\npackage p 1\nlibrary libllama.so\n"
                + "file ../evil.so\n", "00".repeat(32))).hasMessageContaining("not a plain file name");
        assertThatThrownBy(() -> BundledLlama.parse("x86_64", "release v1\nfile libggml.so\n", "00".repeat(32)))
                .hasMessageContaining("no release, package or library");
        assertThat(BundledLlama.forArch("riscv64")).isEmpty();
    }

    /** e_machine of an ELF file: 62 x86-64, 183 AArch64. */
    private static int elfMachine(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] header = in.readNBytes(20);
            assertThat(List.of(header[0], header[1], header[2], header[3]))
                    .containsExactly((byte) 0x7f, (byte) 'E', (byte) 'L', (byte) 'F');
            return (header[18] & 0xff) | (header[19] & 0xff) << 8;
        }
    }
}
