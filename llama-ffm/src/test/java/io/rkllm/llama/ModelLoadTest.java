package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TinyLlama;
import org.junit.jupiter.api.Test;

/** The tiny model loads in the real library, and what libllama says of it is what the file says. */
class ModelLoadTest {

    @Test
    void theBundledLibraryIsIdentified() {
        LibraryInfo info = TestLlama.runtime().info();
        System.out.println(info);
        assertThat(info.identity().generation()).isNotNull();
        assertThat(info.systemInfo()).isNotBlank();
    }

    @Test
    void metadataAndChatTemplateAreRead() {
        try (LlamaModel model = TestLlama.runtime().load(ModelParams.of(TestLlama.chatModel()))) {
            ModelInfo info = model.info();
            System.out.println(info.description() + " " + info.parameterCount() + " " + info.sizeBytes());
            assertThat(info.embeddingLength()).isEqualTo(64);
            assertThat(info.layers()).isEqualTo(2);
            assertThat(info.contextLengthTrained()).isEqualTo(2048);
            assertThat(info.vocabularySize()).isEqualTo(TinyLlama.vocabulary(TinyLlama.Options.chat()).size());
            assertThat(model.chatTemplate()).contains(TinyLlama.CHAT_TEMPLATE);
            assertThat(model.metadata("general.name")).contains("tiny-llama");
            assertThat(info.metadata()).containsEntry("general.architecture", "llama");
        }
    }
}
