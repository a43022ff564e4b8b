package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Inputs on which llama.cpp asserts or throws through C (either ends the process) are refused in Java, and the
 * context keeps working afterwards.
 */
class InvalidInputTest extends WithChatModel {

    @Test
    void tokensOutsideTheVocabularyAreRefused() {
        int outside = model.vocabularySize();
        assertThatThrownBy(() -> model.tokenToPiece(outside, false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside the vocabulary");
        assertThatThrownBy(() -> model.detokenize(new int[] {1, -1}, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> model.isControl(outside)).isInstanceOf(IllegalArgumentException.class);
        try (Sampler sampler = model.newSampler(SamplingParams.greedy().withGrammar("root ::= \"a\""))) {
            assertThatThrownBy(() -> sampler.accept(outside)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void batchesTheContextCannotTakeAreRefusedAndTheContextGoesOn() {
        try (LlamaContext context = model.newContext(ContextParams.generation(256, 2, 1).withBatchSize(64));
             Batch big = new Batch(65, 1);
             Batch batch = new Batch(16, 1)) {
            for (int i = 0; i < 65; i++) {
                big.add(5, i, 0, false);
            }
            assertThat(context.batchSize()).isEqualTo(64);
            assertThatThrownBy(() -> context.decode(big)).hasMessageContaining("at most 64");
            batch.add(model.vocabularySize() + 3, 0, 0, true);
            assertThatThrownBy(() -> context.decode(batch)).hasMessageContaining("outside the vocabulary");
            batch.clear();
            batch.add(5, 0, 2, true);
            assertThatThrownBy(() -> context.decode(batch)).hasMessageContaining("sequences 0 to 1");
            batch.clear();
            batch.add(5, -4, 0, true);
            assertThatThrownBy(() -> context.decode(batch)).hasMessageContaining("negative position");
            batch.clear();
            assertThatThrownBy(() -> context.decode(batch)).hasMessageContaining("empty");

            assertThatThrownBy(() -> context.kv().maxPosition(2)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> context.kv().copy(0, 7, 0, -1)).isInstanceOf(IllegalArgumentException.class);
            batch.add(5, 0, 1, true);
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            assertThat(context.kv().maxPosition(1)).isZero();
            assertThat(context.kv().remove(-1, 0, -1)).isTrue();
            assertThat(context.kv().maxPosition(1)).isEqualTo(-1);
        }
    }

    @Test
    void aFullContextSaysSoAndKeepsWhatItHeld() {
        try (LlamaContext context = model.newContext(ContextParams.generation(64, 1, 1).withBatchSize(64));
             Batch batch = new Batch(48, 1)) {
            int cells = context.contextLength(); // the library may round the length up
            int held = 0;
            while (held + 48 <= cells) {
                fill(batch, held);
                assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
                held += 48;
            }
            fill(batch, held);
            if (TestLlama.runtime().info().identity().generation() == LayoutGeneration.B4916) {
                // build 4916 answers a full cache with -3 ("failed to prepare ubatch"), not with 1
                assertThatThrownBy(() -> context.decode(batch)).isInstanceOf(LlamaException.class)
                        .hasMessageContaining("code -3");
            } else {
                assertThat(context.decode(batch)).isEqualTo(DecodeStatus.NO_KV_SLOT);
            }
            assertThat(context.kv().maxPosition(0)).isEqualTo(held - 1);
        }
    }

    private static void fill(Batch batch, int from) {
        batch.clear();
        for (int i = 0; i < batch.capacity(); i++) {
            batch.add(5 + i, from + i, 0, i == batch.capacity() - 1);
        }
    }
}
