package io.rkllm.server.backend.llama;

import io.rkllm.server.engine.contract.TokenLogprob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A sampled token's log probability and the likeliest tokens at its place, from the logits of its decode: their
 * log-softmax, the model's own distribution before any sampler narrowed it (what OpenAI and llama-server report,
 * whatever the temperature). Pure arithmetic on the logits; the loop calls it only for runs that ask.
 */
final class TokenChances {
    private TokenChances() {
    }

    /**
     * @param logits one decode's logits, one per vocabulary token
     * @param token  the sampled token
     * @param piece  its bytes as the answer writes them
     * @param top    how many of the likeliest tokens to give beside it
     * @param pieces each token's bytes as the answer would write them
     */
    static TokenLogprob of(float[] logits, int token, byte[] piece, int top, IntFunction<byte[]> pieces) {
        double normaliser = logSumExp(logits);
        List<TokenLogprob.Choice> choices = new ArrayList<>(top);
        for (int id : likeliest(logits, top)) {
            byte[] bytes = pieces.apply(id);
            choices.add(new TokenLogprob.Choice(text(bytes), bytes, logits[id] - normaliser));
        }
        return new TokenLogprob(text(piece), piece, logits[token] - normaliser, choices);
    }

    /** log(sum(exp(x))), shifted by the largest logit so that no term overflows. */
    static double logSumExp(float[] logits) {
        float max = Float.NEGATIVE_INFINITY;
        for (float x : logits) {
            max = Math.max(max, x);
        }
        if (max == Float.NEGATIVE_INFINITY) {
            return max;
        }
        double sum = 0;
        for (float x : logits) {
            sum += Math.exp(x - max);
        }
        return max + Math.log(sum);
    }

    /** The {@code n} tokens with the largest logits, largest first (the lower id first among equals). */
    static int[] likeliest(float[] logits, int n) {
        int k = Math.min(n, logits.length);
        int[] ids = new int[k];
        int filled = 0;
        for (int id = 0; id < logits.length; id++) {
            float x = logits[id];
            if (filled == k && (k == 0 || x <= logits[ids[k - 1]])) {
                continue;
            }
            int at = filled < k ? filled++ : k - 1;
            while (at > 0 && logits[ids[at - 1]] < x) {
                ids[at] = ids[at - 1];
                at--;
            }
            ids[at] = id;
        }
        return ids;
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
