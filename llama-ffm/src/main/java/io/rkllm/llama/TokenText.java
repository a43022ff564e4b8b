package io.rkllm.llama;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

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

    /**
     * @param size the vocabulary's tokens
     * @param ends whether a token ends the generation
     * @param control whether a token is a control token
     * @param piece a token's bytes
     */
    private TokenText(int size, IntPredicate ends, IntPredicate control, IntFunction<byte[]> piece) {
        pieces = new byte[size][];
        for (int token = 0; token < size; token++) {
            if (ends.test(token)) {
                endOfGeneration.set(token);
            } else if (!control.test(token)) {
                pieces[token] = piece.apply(token);
            }
        }
    }

    static TokenText of(int size, IntPredicate ends, IntPredicate control, IntFunction<byte[]> piece) {
        return new TokenText(size, ends, control, piece);
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
