package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.ffm.rknn.CoreMask;
import io.rkllm.ffm.rknn.ImageEncoder;
import io.rkllm.ffm.rknn.RknnRuntime;
import io.rkllm.ffm.rknn.RknnSim;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Both runtimes are found the same way, and the jar's simulated ones can be copied out and used. */
class LibraryLocatorTest {
    @TempDir
    Path dir;

    @Test
    void theRknnRuntimeIsSearchedWhereTheRkllmOneIs() throws IOException {
        Map<String, String> env = Map.of("LD_LIBRARY_PATH", dir.toString());
        LibraryLocator rkllm = new LibraryLocator(env);
        LibraryLocator rknn = LibraryLocator.rknn(env);
        assertThat(rknn.libraryName()).isEqualTo("librknnrt.so");
        assertThat(rknn.searchPath()).map(p -> p.getParent())
                .containsExactlyElementsOf(rkllm.searchPath().stream().map(Path::getParent).toList());
        assertThat(rknn.searchPath()).allSatisfy(p -> assertThat(p.getFileName()).hasToString("librknnrt.so"));
        Files.writeString(dir.resolve("librknnrt.so"), "x");
        Optional<Path> found = rknn.locate(Optional.empty());
        assertThat(found).isPresent();
        assertThat(found.get().getFileName()).hasToString("librknnrt.so");
        assertThat(rknn.locate(Optional.of(dir.resolve("nope.so")))).isEmpty();
    }

    @Test
    void theBundledSimulatedRknnRuntimeRunsAnEncoder() throws IOException {
        Path library = SimulatedRuntime.extractRknn(dir.resolve("lib")).orElseThrow();
        assertThat(library.getFileName()).hasToString("librknnrt.so");
        Path model = RknnSim.encoder(dir, "e", Map.of("image_tokens", "2", "embed_dim", "3", "input_width", "4",
                "input_height", "4"));
        try (ImageEncoder encoder = RknnRuntime.open(library).openEncoder(model, CoreMask.CORES_0_1_2)) {
            assertThat(encoder.encode(new byte[4 * 4 * 3])).hasSize(6);
        }
    }
}
