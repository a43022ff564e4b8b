package io.rkllm.server.backend.llama;

import io.rkllm.llama.LogitBias;
import io.rkllm.llama.LlamaModel;
import io.rkllm.server.engine.contract.TokenBias;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A request's logit biases in the model's tokens: an id as it is (one the vocabulary has), a text as the tokens the
 * model splits it into, without a beginning-of-text token, as llama-server reads them.
 */
final class TokenBiases {
    /** A bias the model cannot take: the client's to change (a 400 naming {@code logit_bias}). */
    static final class Refused extends IllegalArgumentException {
        Refused(String message) {
            super(message);
        }
    }

    private TokenBiases() {
    }

    static List<LogitBias> of(List<TokenBias> biases, LlamaModel model) {
        List<LogitBias> out = new ArrayList<>();
        int vocabulary = model.vocabularySize();
        for (TokenBias b : biases) {
            if (b.token().isPresent()) {
                int token = b.token().getAsInt();
                if (token < 0 || token >= vocabulary) {
                    throw new Refused("'logit_bias' names token " + token + ", which this model's vocabulary does"
                            + " not have (its tokens are 0 to " + (vocabulary - 1) + ")");
                }
                out.add(new LogitBias(token, b.bias()));
                continue;
            }
            for (int token : model.tokenize(b.text(), false, false)) {
                out.add(new LogitBias(token, b.bias()));
            }
        }
        refuseBanningAll(out, vocabulary);
        return out;
    }

    /** A ban of every token leaves nothing to sample: llama.cpp would pick one of them anyway. */
    private static void refuseBanningAll(List<LogitBias> biases, int vocabulary) {
        BitSet banned = new BitSet(vocabulary);
        for (LogitBias b : biases) {
            if (b.bias() == Float.NEGATIVE_INFINITY) {
                banned.set(b.token());
            }
        }
        if (banned.cardinality() == vocabulary) {
            throw new Refused("'logit_bias' bans every token of this model's vocabulary: nothing would be left to"
                    + " write");
        }
    }
}
