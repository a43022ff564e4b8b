package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Token-level prefix reuse through the KV cache calls of whichever generation the library has: a follow-up
 * decodes only its new tokens, an edited turn cuts the cache at the first differing token, and either way the
 * next token's logits are those of decoding the whole prompt afresh.
 */
class PrefixReuseTest extends WithChatModel {
    private static final String TURN_1 = "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello there, "
            + "how are you today?<|im_end|>\n<|im_start|>assistant\n";

    @Test
    void aFollowUpDecodesOnlyItsNewTokens() {
        try (LlamaContext context = model.newContext(ContextParams.generation(1024, 1, 1));
             Batch batch = new Batch(512, 1);
             Sampler sampler = model.newSampler(SamplingParams.greedy())) {
            int[] first = model.tokenize(TURN_1, true, true);
            int index = Greedy.prefill(context, batch, 0, first, 0);
            int[] answer = Greedy.continueFrom(context, batch, sampler, 0, index, first.length, 8);
            int held = first.length + answer.length;
            assertThat(context.kv().maxPosition(0)).isEqualTo(held - 1);

            int[] next = model.tokenize("<|im_end|>\n<|im_start|>user\nAnd then?<|im_end|>\n<|im_start|>assistant\n",
                    false, true);
            long before = context.decodedTokens();
            int last = Greedy.prefill(context, batch, 0, next, held);
            assertThat(context.decodedTokens() - before).isEqualTo(next.length);

            int[] whole = concat(first, answer, next);
            assertSameAsFresh(context.logits(last), whole);
        }
    }

    @Test
    void anEditedTurnCutsTheCacheAtTheFirstDifferingToken() {
        try (LlamaContext context = model.newContext(ContextParams.generation(1024, 1, 1));
             Batch batch = new Batch(512, 1)) {
            int[] original = model.tokenize(TURN_1, true, true);
            Greedy.prefill(context, batch, 0, original, 0);
            int[] edited = model.tokenize(TURN_1.replace("how are you today?", "what is the answer?"), true, true);
            int common = commonPrefix(original, edited);
            assertThat(common).isGreaterThan(5).isLessThan(edited.length);

            assertThat(context.kv().remove(0, common, -1)).isTrue();
            assertThat(context.kv().maxPosition(0)).isEqualTo(common - 1);
            long before = context.decodedTokens();
            int last = Greedy.prefill(context, batch, 0, Arrays.copyOfRange(edited, common, edited.length), common);
            assertThat(context.decodedTokens() - before).isEqualTo(edited.length - common);
            assertSameAsFresh(context.logits(last), edited);
        }
    }

    @Test
    void aSequenceCanStartFromAnotherOnesPrefix() {
        try (LlamaContext context = model.newContext(ContextParams.generation(1024, 2, 1));
             Batch batch = new Batch(512, 1)) {
            int[] prompt = model.tokenize(TURN_1, true, true);
            Greedy.prefill(context, batch, 0, prompt, 0);
            int keep = prompt.length - 4;
            context.kv().copy(0, 1, 0, keep);
            assertThat(context.kv().maxPosition(1)).isEqualTo(keep - 1);
            int[] tail = model.tokenize("Tell me a story.", false, false);
            long before = context.decodedTokens();
            int last = Greedy.prefill(context, batch, 1, tail, keep);
            assertThat(context.decodedTokens() - before).isEqualTo(tail.length);
            assertSameAsFresh(context.logits(last), concat(Arrays.copyOf(prompt, keep), tail));
            assertThat(context.kv().maxPosition(0)).isEqualTo(prompt.length - 1);
            context.kv().keepOnly(1);
            assertThat(context.kv().maxPosition(0)).isEqualTo(-1);
            context.kv().clear();
            assertThat(context.kv().maxPosition(1)).isEqualTo(-1);
        }
    }

    @Test
    void aSequenceWithACacheOfItsOwnStartsFromAnotherOnesPrefixToo() {
        // llama.cpp copies between caches only whole sequences (it asserts otherwise): the copy is whole, then cut
        try (LlamaContext context = model.newContext(ContextParams.generation(1024, 2, 1, true));
             Batch batch = new Batch(512, 1)) {
            boolean ownCaches = TestLlama.runtime().info().identity().generation() != LayoutGeneration.B4916;
            assertThat(context.contextLength()).as("a cache of 1,024 cells each, where the build has them")
                    .isEqualTo(ownCaches ? 2048 : 1024);
            int[] prompt = model.tokenize(TURN_1, true, true);
            Greedy.prefill(context, batch, 0, prompt, 0);
            int keep = prompt.length - 4;
            context.kv().copy(0, 1, 0, keep);
            assertThat(context.kv().maxPosition(1)).isEqualTo(keep - 1);
            assertThat(context.kv().maxPosition(0)).isEqualTo(prompt.length - 1);
            int[] tail = model.tokenize("Tell me a story.", false, false);
            long before = context.decodedTokens();
            int last = Greedy.prefill(context, batch, 1, tail, keep);
            assertThat(context.decodedTokens() - before).isEqualTo(tail.length);
            assertSameAsFresh(context.logits(last), concat(Arrays.copyOf(prompt, keep), tail));
            assertThat(context.kv().maxPosition(0)).isEqualTo(prompt.length - 1);
        }
    }

    @Test
    void theKvCallsAreTheLibrarysGeneration() {
        try (LlamaContext context = model.newContext(ContextParams.generation(256, 1, 1))) {
            assertThat(context.kv().api()).isEqualTo(TestLlama.runtime().info().identity().kvApi());
        }
    }

    private static void assertSameAsFresh(float[] reused, int[] wholePrompt) {
        try (LlamaContext fresh = model.newContext(ContextParams.generation(1024, 1, 1));
             Batch batch = new Batch(512, 1)) {
            float[] expected = fresh.logits(Greedy.prefill(fresh, batch, 0, wholePrompt, 0));
            assertThat(Greedy.argmax(reused)).isEqualTo(Greedy.argmax(expected));
            for (int i = 0; i < expected.length; i++) {
                assertThat(reused[i]).as("logit %d", i).isCloseTo(expected[i], org.assertj.core.data.Offset.offset(2e-3f));
            }
        }
    }

    static int commonPrefix(int[] a, int[] b) {
        int n = 0;
        while (n < a.length && n < b.length && a[n] == b[n]) {
            n++;
        }
        return n;
    }

    static int[] concat(int[]... parts) {
        return Arrays.stream(parts).flatMapToInt(Arrays::stream).toArray();
    }
}
