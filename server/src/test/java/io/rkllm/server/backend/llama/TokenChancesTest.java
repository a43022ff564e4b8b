package io.rkllm.server.backend.llama;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.rkllm.server.engine.contract.TokenLogprob;
import org.junit.jupiter.api.Test;

/** The log-softmax of a decode's logits at the sampled token, and the likeliest tokens beside it. */
class TokenChancesTest {
    private static final byte[][] PIECES = {"a".getBytes(UTF_8), "b".getBytes(UTF_8), "c".getBytes(UTF_8),
        "d".getBytes(UTF_8), {(byte) 0xE2, (byte) 0x82}};

    @Test
    void theProbabilitiesAreTheLogitsSoftmax() {
        float[] logits = {1f, 3f, 2f, 3f, -1f};
        TokenLogprob t = TokenChances.of(logits, 2, PIECES[2], 3, id -> PIECES[id]);
        double sum = Math.exp(1) + 2 * Math.exp(3) + Math.exp(2) + Math.exp(-1);
        assertThat(t.logprob()).isCloseTo(2 - Math.log(sum), within(1e-6));
        assertThat(t.token()).isEqualTo("c");
        // the likeliest first; of two equal, the lower id first
        assertThat(t.top()).extracting(TokenLogprob.Choice::token).containsExactly("b", "d", "c");
        assertThat(t.top().get(0).logprob()).isCloseTo(3 - Math.log(sum), within(1e-6));
        double total = 0;
        for (float x : logits) {
            total += Math.exp(x - TokenChances.logSumExp(logits));
        }
        assertThat(total).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void largeLogitsDoNotOverflowAndAPieceOfACharacterKeepsItsBytes() {
        float[] logits = {1000f, 999f, -5f, 0f, 1001f};
        TokenLogprob t = TokenChances.of(logits, 4, PIECES[4], 0, id -> PIECES[id]);
        assertThat(t.logprob()).isFinite().isNegative().isGreaterThan(-1);
        assertThat(t.top()).isEmpty();
        assertThat(t.token()).isEqualTo("\uFFFD");
        assertThat(t.bytes()).containsExactly(0xE2, 0x82);
    }

    @Test
    void askingForMoreThanTheVocabularyGivesEveryTokenInOrder() {
        assertThat(TokenChances.likeliest(new float[] {0.5f, -2f, 7f}, 20)).containsExactly(2, 0, 1);
        assertThat(TokenChances.likeliest(new float[] {0.5f, -2f, 7f}, 0)).isEmpty();
        assertThat(TokenChances.likeliest(new float[] {1f, 1f, 1f, 2f}, 2)).containsExactly(3, 0);
    }
}
