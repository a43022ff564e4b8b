package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.llama.grammar.InvalidGrammarException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sampling under a grammar with the real library, where llama.cpp alone would go wrong: a grammar it cannot parse
 * (build 4916 would sample unconstrained), left recursion (not detected), a grammar that leaves no token (a refused
 * token ends the process), tokens that break UTF-8 or are control tokens (read by the grammar as characters the
 * text does not have).
 */
class GrammarSamplingTest {
    private static final String PROMPT = "<|im_start|>user\nWrite.<|im_end|>\n<|im_start|>assistant\n";
    private static LlamaModel model;

    @BeforeAll
    static void load() {
        model = TestLlama.runtime().load(ModelParams.of(TestLlama.chatModel()));
    }

    @AfterAll
    static void close() {
        model.close();
    }

    @Test
    void aGrammarTheLibraryWouldRefuseIsAnExceptionBeforeItGetsThere() {
        // build 4916 would log the first two to stderr and sample without any constraint; the third it would accept
        for (String grammar : List.of("root ::= value", "root ::= \"a\" (", "root ::= root \"a\" | \"b\"")) {
            assertThatThrownBy(() -> model.newSampler(SamplingParams.greedy().withGrammar(grammar)))
                    .isInstanceOf(InvalidGrammarException.class);
        }
        assertThatThrownBy(() -> model.newSampler(SamplingParams.greedy().withGrammar("root ::= value")))
                .hasMessageContaining("'value', which is not defined");
    }

    @Test
    void aGrammarThatLeavesNoTokenIsAnExceptionNotAnAbort() {
        // U+D800 is no character: its first byte (0xED) is a token, but no second byte both continues it as
        // UTF-8 and is the one the grammar wants; handed to llama.cpp, a refused token would end the process
        try (LlamaContext context = model.newContext(ContextParams.generation(256, 1, 1));
             Batch batch = new Batch(256, 1);
             Sampler sampler = model.newSampler(SamplingParams.greedy().withGrammar("root ::= [\\uD800] \"!\""))) {
            int[] prompt = model.tokenize(PROMPT, true, true);
            int index = Greedy.prefill(context, batch, 0, prompt, 0);
            int first = sampler.sample(context, index);
            assertThat(model.tokenToPiece(first, false)).containsExactly((byte) 0xED);
            batch.clear();
            int next = batch.add(first, prompt.length, 0, true);
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            assertThatThrownBy(() -> sampler.sample(context, next)).isInstanceOf(LlamaException.class)
                    .hasMessageContaining("allows no token");
        }
    }

    @Test
    void underAGrammarNoControlTokenIsWrittenAndTheTextStaysUtf8() {
        String anyText = "root ::= [^\\x00]{40}";
        for (long seed = 1; seed <= 4; seed++) {
            List<Integer> tokens = generate(SamplingParams.random(4f, seed).withGrammar(anyText), 41);
            for (int token : tokens) {
                assertThat(model.isControl(token)).as("token %d", token).isFalse();
            }
            String text = model.detokenize(tokens.stream().mapToInt(Integer::intValue).toArray(), false);
            assertThat(text).doesNotContain("\uFFFD");
            assertThat(text.codePointCount(0, text.length())).as(text).isEqualTo(40);
        }
    }

    @Test
    void aSamplerWithAGrammarTakesOnlyItsOwnTokens() {
        try (Sampler sampler = model.newSampler(SamplingParams.greedy().withGrammar("root ::= \"a\""))) {
            assertThatThrownBy(() -> sampler.accept(model.tokenize("b", false, false)[0]))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    /** {@code count} tokens sampled under {@code params} (fewer if the model ends first). */
    private static List<Integer> generate(SamplingParams params, int count) {
        try (LlamaContext context = model.newContext(ContextParams.generation(512, 1, 1));
             Batch batch = new Batch(256, 1);
             Sampler sampler = model.newSampler(params)) {
            int[] prompt = model.tokenize(PROMPT, true, true);
            int index = Greedy.prefill(context, batch, 0, prompt, 0);
            List<Integer> out = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int token = sampler.sample(context, index);
                if (model.isEndOfGeneration(token)) {
                    break;
                }
                out.add(token);
                batch.clear();
                index = batch.add(token, prompt.length + i, 0, true);
                assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            }
            return out;
        }
    }
}
