package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Damaged model files are refused with a Java exception that says why, and the library keeps working. */
class BrokenModelTest {

    @Test
    void aTruncatedFileIsRefusedBeforeTheLibrarySeesIt() throws Exception {
        byte[] whole = Files.readAllBytes(TestLlama.chatModel());
        Path cut = TestLlama.tempDir().resolve("cut.gguf");
        Files.write(cut, java.util.Arrays.copyOf(whole, whole.length - 4096));
        assertThatThrownBy(() -> TestLlama.runtime().load(ModelParams.of(cut)))
                .isInstanceOf(LlamaException.class).hasMessageContaining("truncated");
        assertStillServes();
    }

    @Test
    void aFileThatIsNotGgufIsRefused() throws Exception {
        Path text = TestLlama.tempDir().resolve("notes.gguf");
        Files.writeString(text, "these are not the weights you are looking for\n".repeat(20));
        assertThatThrownBy(() -> TestLlama.runtime().load(ModelParams.of(text)))
                .isInstanceOf(LlamaException.class).hasMessageContaining("not a GGUF file");
        Path missing = text.resolveSibling("missing.gguf");
        assertThatThrownBy(() -> TestLlama.runtime().load(ModelParams.of(missing)))
                .isInstanceOf(LlamaException.class).hasMessageContaining("missing.gguf");
    }

    @Test
    void aWellFormedFileTheLibraryRejectsSaysWhatTheLibrarySaid() throws Exception {
        Path lying = TestLlama.tempDir().resolve("three-layers-claimed.gguf");
        TinyLlama.write(lying, TinyLlama.Options.chat().withDeclaredLayers(3));
        assertThatThrownBy(() -> TestLlama.runtime().load(ModelParams.of(lying)))
                .isInstanceOf(LlamaException.class)
                .hasMessageContaining("could not load")
                .hasMessageContaining("blk.2");
        assertStillServes();
    }

    private static void assertStillServes() {
        try (LlamaModel model = TestLlama.runtime().load(ModelParams.of(TestLlama.chatModel()))) {
            assertThat(model.tokenize("still here", false, false)).isNotEmpty();
        }
    }
}
