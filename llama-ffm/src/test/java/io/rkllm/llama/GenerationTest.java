package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Greedy generation with the real library: deterministic, and the same whether sampled natively or by argmax. */
class GenerationTest extends WithChatModel {
    private static final String PROMPT = "<|im_start|>user\nHello, how are you?<|im_end|>\n<|im_start|>assistant\n";

    @Test
    void greedyGenerationIsDeterministic() {
        int[] first = Greedy.generate(model, PROMPT, 24);
        int[] second = Greedy.generate(model, PROMPT, 24);
        System.out.println("greedy: " + Greedy.show(model, first));
        assertThat(second).isEqualTo(first);
        assertThat(Greedy.generate(model, "<|im_start|>user\nSomething else<|im_end|>\n", 24)).isNotEqualTo(first);
    }

    @Test
    void theGreedySamplerPicksTheLargestLogit() {
        try (LlamaContext context = model.newContext(ContextParams.generation(256, 1, 1));
             Batch batch = new Batch(256, 1);
             Sampler sampler = model.newSampler(SamplingParams.greedy())) {
            int index = Greedy.prefill(context, batch, 0, model.tokenize(PROMPT, true, true), 0);
            float[] logits = context.logits(index);
            assertThat(logits).hasSize(model.vocabularySize());
            assertThat(sampler.sample(context, index)).isEqualTo(Greedy.argmax(logits));
        }
    }

    @Test
    void logitBiasesAreAddedBeforeTheChainPicks() {
        try (LlamaContext context = model.newContext(ContextParams.generation(256, 1, 1));
             Batch batch = new Batch(256, 1)) {
            int index = Greedy.prefill(context, batch, 0, model.tokenize(PROMPT, true, true), 0);
            float[] logits = context.logits(index);
            int best = Greedy.argmax(logits);
            int other = best == 0 ? 1 : 0;
            // just enough to pass the best logit, and a ban of the best: both pick another token
            float raise = logits[best] - logits[other] + 0.01f;
            try (Sampler raised = model.newSampler(SamplingParams.greedy()
                    .withLogitBias(List.of(new LogitBias(other, raise))));
                 Sampler banned = model.newSampler(SamplingParams.greedy()
                         .withLogitBias(List.of(new LogitBias(best, Float.NEGATIVE_INFINITY))))) {
                assertThat(raised.sample(context, index)).isEqualTo(other);
                logits[best] = Float.NEGATIVE_INFINITY;
                assertThat(banned.sample(context, index)).isEqualTo(Greedy.argmax(logits));
            }
            assertThatThrownBy(() -> model.newSampler(SamplingParams.greedy()
                    .withLogitBias(List.of(new LogitBias(model.vocabularySize(), 1f)))))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void seededSamplingRepeatsItselfAndPenaltiesChangeTheOutput() {
        SamplingParams random = SamplingParams.random(0.9f, 1234);
        int[] a = sample(random, 20);
        int[] b = sample(random, 20);
        assertThat(b).isEqualTo(a);
        assertThat(sample(SamplingParams.greedy().withPenalties(1.8f, 0.5f, 0.5f, 64), 20))
                .isNotEqualTo(sample(SamplingParams.greedy(), 20));
    }

    @Test
    void aGrammarConstrainsTheOutput() {
        int[] tokens = sample(SamplingParams.greedy().withGrammar("root ::= [a-c]+ \"!\""), 12);
        String text = model.detokenize(tokens, false);
        System.out.println("grammar: " + text);
        assertThat(text).matches("[a-c]*!?[a-c]*");
        assertThat(text).isNotEmpty();
    }

    private int[] sample(SamplingParams params, int count) {
        try (LlamaContext context = model.newContext(ContextParams.generation(256, 1, 1));
             Batch batch = new Batch(256, 1);
             Sampler sampler = model.newSampler(params)) {
            int[] prompt = model.tokenize(PROMPT, true, true);
            int index = Greedy.prefill(context, batch, 0, prompt, 0);
            int[] out = new int[count];
            for (int i = 0; i < count; i++) {
                out[i] = sampler.sample(context, index);
                if (model.isEndOfGeneration(out[i])) {
                    return java.util.Arrays.copyOf(out, i);
                }
                batch.clear();
                index = batch.add(out[i], prompt.length + i, 0, true);
                assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            }
            return out;
        }
    }
}
