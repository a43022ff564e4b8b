package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The binding still serves the oldest llama.cpp it knows (build 4916, March 2025: B4916 layouts, the KV_SELF calls,
 * the CPU backend linked in), as a user's own build or an RKNPU fork of that age would be: identified by its
 * defaults, a tiny model generates greedily, an edit cuts the cache where it starts and only the rest is decoded.
 */
class OlderBuildTest {
    private static final String TURN = "<|im_start|>user\nHello there, how are you today?<|im_end|>\n"
            + "<|im_start|>assistant\n";

    @Test
    void build4916IsIdentifiedByItsDefaultsAndExports() {
        LibraryInfo info = Build4916.runtime().info();
        assertThat(info.identity().generation()).isEqualTo(LayoutGeneration.B4916);
        assertThat(info.identity().kvApi()).isEqualTo(KvApi.KV_SELF);
        assertThat(info.identity().buildNumber()).hasValue(4916);
        assertThat(info.identity().commit()).hasValueSatisfying(c -> assertThat(c).startsWith("c6af2161"));
    }

    @Test
    void aCurrentArchitectureIsRefusedByTheOldBuildAndServedByTheBundledOne() throws java.io.IOException {
        java.nio.file.Path file = TestLlama.tempDir().resolve("tiny-qwen3.gguf");
        io.rkllm.llama.gguf.TinyLlama.write(file, io.rkllm.llama.gguf.TinyLlama.Options.qwen3());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Build4916.runtime().load(ModelParams.of(file)))
                .isInstanceOf(LlamaException.class).hasMessageContaining("unknown model architecture")
                .hasMessageContaining("qwen3");
        try (LlamaModel model = TestLlama.runtime().load(ModelParams.of(file))) {
            assertThat(model.metadata("general.architecture")).contains("qwen3");
            assertThat(Greedy.generate(model, "Hello there, how are you?", 6)).hasSize(6);
        }
    }

    @Test
    void aTinyModelGeneratesAsOnTheBundledBuildAndAnEditDecodesOnlyWhatChanged() {
        try (LlamaModel model = Build4916.runtime().load(ModelParams.of(TestLlama.chatModel()));
             LlamaContext context = model.newContext(ContextParams.generation(512, 1, 1));
             Batch batch = new Batch(512, 1);
             Sampler sampler = model.newSampler(SamplingParams.greedy())) {
            int[] prompt = model.tokenize(TURN, true, true);
            int index = Greedy.prefill(context, batch, 0, prompt, 0);
            int[] answer = Greedy.continueFrom(context, batch, sampler, 0, index, prompt.length, 8);
            try (LlamaModel current = TestLlama.runtime().load(ModelParams.of(TestLlama.chatModel()))) {
                assertThat(answer).as("the same greedy tokens as the bundled v0.5.0")
                        .isEqualTo(Greedy.generate(current, TURN, 8));
            }

            int[] edited = model.tokenize(TURN.replace("how are you today?", "what is the answer?"), true, true);
            int common = 0;
            while (prompt[common] == edited[common]) {
                common++;
            }
            assertThat(context.kv().remove(0, common, -1)).isTrue();
            long before = context.decodedTokens();
            Greedy.prefill(context, batch, 0, Arrays.copyOfRange(edited, common, edited.length), common);
            assertThat(context.decodedTokens() - before).isEqualTo(edited.length - common);
            assertThat(context.kv().maxPosition(0)).isEqualTo(edited.length - 1);
        }
    }
}
