package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Three conversations in one context, decoded together: one llama_decode per step for all three. */
class ParallelSequencesTest extends WithChatModel {
    private static final List<String> PROMPTS = List.of(
            "<|im_start|>user\nHello, how are you?<|im_end|>\n<|im_start|>assistant\n",
            "<|im_start|>user\nWhat is the answer?<|im_end|>\n<|im_start|>assistant\n",
            "<|im_start|>user\nTell me about the board and its four big cores.<|im_end|>\n<|im_start|>assistant\n");
    private static final int STEPS = 12;

    @Test
    void threeSequencesAdvanceTogetherAndEachGetsWhatItWouldAlone() {
        int n = PROMPTS.size();
        int[][] prompts = new int[n][];
        int[][] generated = new int[n][STEPS];
        try (LlamaContext context = model.newContext(ContextParams.generation(1024, n, 1));
             Batch batch = new Batch(512, 1)) {
            Sampler[] samplers = new Sampler[n];
            int[] logitIndex = new int[n];
            batch.clear();
            for (int s = 0; s < n; s++) {
                samplers[s] = model.newSampler(SamplingParams.greedy());
                prompts[s] = model.tokenize(PROMPTS.get(s), true, true);
                for (int i = 0; i < prompts[s].length; i++) {
                    int index = batch.add(prompts[s][i], i, s, i == prompts[s].length - 1);
                    if (i == prompts[s].length - 1) {
                        logitIndex[s] = index;
                    }
                }
            }
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            for (int step = 0; step < STEPS; step++) {
                batch.clear();
                for (int s = 0; s < n; s++) {
                    generated[s][step] = samplers[s].sample(context, logitIndex[s]);
                }
                for (int s = 0; s < n; s++) {
                    logitIndex[s] = batch.add(generated[s][step], prompts[s].length + step, s, true);
                }
                assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            }
            assertThat(context.decodeCalls()).isEqualTo(1 + STEPS);
            for (int s = 0; s < n; s++) {
                assertThat(context.kv().maxPosition(s)).isEqualTo(prompts[s].length + STEPS - 1);
                samplers[s].close();
            }
        }
        for (int s = 0; s < n; s++) {
            int[] alone = Greedy.generate(model, PROMPTS.get(s), STEPS);
            System.out.println("sequence " + s + ": " + Greedy.show(model, generated[s]));
            assertThat(generated[s]).as("sequence %d", s).isEqualTo(alone);
        }
        assertThat(generated[0]).isNotEqualTo(generated[1]);
    }
}
