package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.GgufReader;
import io.rkllm.llama.gguf.TinyLlama;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model split into parts as gguf-split writes them (what Hugging Face repositories hold for models over 50 GB):
 * the library loads it through its first part, whole, and it answers as the same model in one file does.
 */
class SplitModelTest {
    @TempDir
    Path dir;

    @Test
    void aModelInThreePartsLoadsThroughItsFirstAndAnswersAsTheWholeFile() throws IOException {
        List<Path> parts = TinyLlama.writeSplit(dir, "tiny-Q8_0", TinyLlama.Options.chat(), 3);
        assertThat(parts).extracting(p -> p.getFileName().toString()).containsExactly("tiny-Q8_0-00001-of-00003.gguf",
                "tiny-Q8_0-00002-of-00003.gguf", "tiny-Q8_0-00003-of-00003.gguf");
        assertThat(new GgufReader().read(parts.get(2)).tensors()).isNotEmpty();

        try (LlamaModel split = TestLlama.runtime().load(ModelParams.of(parts.getFirst()));
             LlamaModel whole = TestLlama.runtime().load(ModelParams.of(TestLlama.chatModel()))) {
            assertThat(split.info().parameterCount()).isEqualTo(whole.info().parameterCount());
            assertThat(Greedy.generate(split, "Hello", 8)).containsExactly(Greedy.generate(whole, "Hello", 8));
        }
    }
}
