package io.rkllm.llama;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * What each token of a model writes, for sampling under a grammar: its bytes, or that it ends the generation, or
 * that it is a control token (which a JSON answer never contains: llama.cpp's grammar reads a control token's text,
 * such as {@code <|im_start|>}, as characters, while the answer's text leaves it out). Which tokens may come next
 * at each {@link Utf8State} is computed once per state. Built on the model's owner thread, once per model.
 */
final class TokenText {
    private final byte[][] pieces;
    private final BitSet endOfGeneration = new BitSet();
    private final Map<Integer, BitSet> allowed = new HashMap<>();

    private TokenText(LlamaModel model) {
        int n = model.vocabularySize();
        pieces = new byte[n][];
        for (int token = 0; token < n; token++) {
            if (model.isEndOfGeneration(token)) {
                endOfGeneration.set(token);
            } else if (!model.isControl(token)) {
                pieces[token] = model.tokenToPiece(token, false);
            }
        }
    }

    static TokenText of(LlamaModel model) {
        return new TokenText(model);
    }

    /** The tokens that may come at {@code state}: text keeping UTF-8 well-formed; the end only between characters. */
    BitSet allowed(int state) {
        return allowed.computeIfAbsent(state, s -> {
            BitSet out = new BitSet(pieces.length);
            for (int token = 0; token < pieces.length; token++) {
                if (endOfGeneration.get(token)) {
                    out.set(token, s == Utf8State.COMPLETE);
                } else if (pieces[token] != null && pieces[token].length > 0) {
                    out.set(token, Utf8State.after(s, pieces[token]) != Utf8State.INVALID);
                }
            }
            return out;
        });
    }

    /** The state after {@code token}. */
    int after(int state, int token) {
        if (endOfGeneration.get(token) || pieces[token] == null) {
            return Utf8State.COMPLETE;
        }
        return Utf8State.after(state, pieces[token]);
    }
}
