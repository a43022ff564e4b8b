package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TinyLlama;
import org.junit.jupiter.api.Test;

/** The tiny model loads in the real library, and what libllama says of it is what the file says. */
class ModelLoadTest {

    @Test
    void theBundledLibraryIsReleaseV050WithTheMemoryCallsAndACpuBackendLoadedBesideIt() {
        LibraryInfo info = TestLlama.runtime().info();
        System.out.println(info);
        assertThat(info.systemInfo()).isNotBlank();
        // ggml's CPU backend is a separate library in this build: loaded from the bundle's directory
        assertThat(info.devices()).anyMatch(d -> d.startsWith("CPU"));
        if (System.getProperty("llama.library") == null) {
            assertThat(info.library().origin()).isEqualTo(LlamaLibrary.Origin.BUNDLED);
            assertThat(info.identity().generation()).isEqualTo(LayoutGeneration.V0_5_0);
            assertThat(info.identity().kvApi()).isEqualTo(KvApi.MEMORY);
        }
    }

    @Test
    void metadataAndChatTemplateAreRead() throws java.io.IOException {
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
            assertThat(info.parameterCount()).isEqualTo(new io.rkllm.llama.gguf.GgufReader().read(TestLlama.chatModel())
                    .parameterCount());
            assertThat(info.sizeBytes()).isEqualTo(info.parameterCount() * Float.BYTES);
            assertThat(info.hasDecoder()).isTrue();
            assertThat(info.hasEncoder()).isFalse();
        }
    }
}
