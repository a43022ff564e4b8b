package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.GgufReader;
import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.TestDiscovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GGUF model split into parts (gguf-split's {@code -00001-of-00003} names, as Hugging Face repositories hold the
 * large ones) is one model: found through its first part, sized by all of them, its later parts no warning.
 */
class SplitGgufDiscoveryTest {
    @TempDir
    Path models;
    @TempDir
    Path elsewhere;

    private List<Path> split(int parts) throws IOException {
        return TinyLlama.writeSplit(Files.createDirectories(models.resolve("Big-Q8_0")), "Big-Q8_0",
                TinyLlama.Options.chat(), parts);
    }

    @Test
    void aSplitModelIsOneModelWithTheBytesAndWeightsOfAllItsParts() throws IOException {
        List<Path> parts = split(3);
        Path whole = elsewhere.resolve("whole.gguf");
        TinyLlama.write(whole, TinyLlama.Options.chat());

        DiscoveryResult result = TestDiscovery.standard().discover(models);

        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        ModelDescriptor model = result.models().getFirst();
        assertThat(result.models()).hasSize(1);
        assertThat(model.id()).isEqualTo("big-q8_0");
        assertThat(model.file()).isEqualTo(parts.getFirst());
        assertThat(model.sizeBytes()).isEqualTo(parts.stream().mapToLong(p -> p.toFile().length()).sum());
        assertThat(model.facts().header().orElseThrow().parameterCount())
                .isEqualTo(new GgufReader().read(whole).parameterCount());
    }

    @Test
    void aMissingPartIsSaidByNameAndTheModelIsNotListed() throws IOException {
        List<Path> parts = split(3);
        Files.delete(parts.get(1));

        DiscoveryResult result = TestDiscovery.standard().discover(models);

        assertThat(result.models()).isEmpty();
        assertThat(result.errors()).singleElement().satisfies(e -> assertThat(e.message())
                .contains("Big-Q8_0-00002-of-00003.gguf is missing"));
    }

    @Test
    void laterPartsWithoutTheirFirstAreSaidToBeIncomplete() throws IOException {
        List<Path> parts = split(2);
        Files.delete(parts.getFirst());

        DiscoveryResult result = TestDiscovery.standard().discover(models);

        assertThat(result.models()).isEmpty();
        assertThat(result.warnings()).singleElement().satisfies(w -> assertThat(w.message())
                .contains("part 2 of 2 of a split GGUF model", "Big-Q8_0-00001-of-00002.gguf, which is not there"));
    }
}
