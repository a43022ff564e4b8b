package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

/** A plain generation loop for the tests: prefill a sequence, then sample and decode one token at a time. */
final class Greedy {
    private Greedy() {
    }

    /** Decodes {@code tokens} into {@code sequence} from {@code start}; the last one's logits are at the index returned. */
    static int prefill(LlamaContext context, Batch batch, int sequence, int[] tokens, int start) {
        int last = -1;
        for (int i = 0; i < tokens.length; i += batch.capacity()) {
            batch.clear();
            int end = Math.min(tokens.length, i + batch.capacity());
            for (int j = i; j < end; j++) {
                last = batch.add(tokens[j], start + j, sequence, j == tokens.length - 1);
            }
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
        }
        return last;
    }

    /** Generates {@code count} tokens greedily after the prompt already in {@code sequence} (ending at position). */
    static int[] continueFrom(LlamaContext context, Batch batch, Sampler sampler, int sequence, int logitsIndex,
                              int nextPosition, int count) {
        int[] out = new int[count];
        int index = logitsIndex;
        for (int i = 0; i < count; i++) {
            out[i] = sampler.sample(context, index);
            batch.clear();
            index = batch.add(out[i], nextPosition + i, sequence, true);
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
        }
        return out;
    }

    static int[] generate(LlamaModel model, String prompt, int count) {
        try (LlamaContext context = model.newContext(ContextParams.generation(512, 1, 1));
             Batch batch = new Batch(512, 1);
             Sampler sampler = model.newSampler(SamplingParams.greedy())) {
            int[] tokens = model.tokenize(prompt, true, true);
            int index = prefill(context, batch, 0, tokens, 0);
            return continueFrom(context, batch, sampler, 0, index, tokens.length, count);
        }
    }

    static int argmax(float[] values) {
        int best = 0;
        for (int i = 1; i < values.length; i++) {
            if (values[i] > values[best]) {
                best = i;
            }
        }
        return best;
    }

    static String show(LlamaModel model, int[] tokens) {
        return Arrays.toString(tokens) + " \"" + model.detokenize(tokens, true) + "\"";
    }
}
