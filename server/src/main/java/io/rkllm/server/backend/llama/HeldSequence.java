package io.rkllm.server.backend.llama;

import java.util.Arrays;

/**
 * What one sequence of a context holds: the tokens in its KV cells, in order (kept in step with every decode and
 * every cut), then at most one token sampled and never decoded (the last of an answer cut by its length or a stop,
 * or the end-of-generation token), and the text all of them spell ({@link Spelling}). A follow-up prompt that goes
 * on from the answer starts with that last token: it is decoded then, as the first of the prompt's new tokens.
 * Owned by the decode loop's thread.
 */
final class HeldSequence {
    private int[] tokens = new int[256];
    /** {@code ends[i]}: the text's length after the first {@code i} tokens (whole characters). */
    private int[] ends = new int[257];
    private boolean[] clean = new boolean[257];
    private final StringBuilder text = new StringBuilder();
    /** Tokens held: the decoded ones, then the pending one if any. */
    private int count;
    private int decoded;
    /**
     * The token from which on the text no longer spells the tokens (the model wrote a token its answer does not
     * show); {@link Integer#MAX_VALUE} when the text spells them all.
     */
    private int divergedAt = Integer.MAX_VALUE;

    HeldSequence() {
        clean[0] = true;
    }

    /** Tokens in the KV cells: where the next decoded token goes. */
    int decoded() {
        return decoded;
    }

    int[] decodedTokens() {
        return Arrays.copyOf(tokens, decoded);
    }

    /** The sampled token that was never decoded, or -1. */
    int pending() {
        return count > decoded ? tokens[decoded] : -1;
    }

    /** What it holds, as the cache policy reads it. */
    PrefixCachePolicy.Held view(long lastUsed) {
        return new PrefixCachePolicy.Held(Arrays.copyOf(tokens, count), decoded, spelling(), lastUsed);
    }

    /** The text its tokens spell. */
    Spelling spelling() {
        return new Spelling(text.toString(), Arrays.copyOf(ends, count + 1), Arrays.copyOf(clean, count + 1));
    }

    /**
     * A new run: its first {@code keep} tokens are the cells the sequence keeps (the prompt's first tokens, cut
     * there), spelt as {@code spelling} spells the prompt. What the sequence held after them is gone.
     */
    void restart(int[] prompt, int keep, Spelling spelling) {
        count = 0;
        decoded = 0;
        divergedAt = Integer.MAX_VALUE;
        text.setLength(0);
        for (int i = 0; i < keep; i++) {
            add(prompt[i], spelling.textOf(i), spelling.clean()[i + 1]);
        }
        decoded = keep;
    }

    /** The first {@code keep} cells stay (a run's prompt decoded that far), nothing after them. */
    void truncate(int keep) {
        shorten(Math.min(decoded, keep));
        decoded = count;
    }

    /** A prompt token decoded, adding {@code piece} to the text. */
    void decodedPrompt(int token, String piece, boolean cleanAfter) {
        dropPending();
        add(token, piece, cleanAfter);
        decoded = count;
    }

    /**
     * A sampled token not yet decoded, with the text it added to the answer.
     *
     * @param whole no character waits for more bytes after it
     * @param silent it writes nothing at all (a control token): the answer the client gets goes on without it, so
     *               the text stops spelling the tokens here
     */
    void sampled(int token, String piece, boolean whole, boolean silent) {
        dropPending();
        if (silent) {
            divergedAt = Math.min(divergedAt, count);
        }
        add(token, piece, whole);
    }

    /** The pending token was decoded. */
    void decodedPending(int token) {
        if (pending() != token) {
            throw new IllegalStateException("token " + token + " was not the one pending");
        }
        decoded = count;
    }

    /** Text that came after the last token (the end of a run flushed a character no token completed). */
    void endText(String rest) {
        if (rest.isEmpty() || count == 0) {
            return;
        }
        text.append(rest);
        ends[count] = text.length();
        clean[count] = count <= divergedAt;
    }

    private void add(int token, String piece, boolean cleanAfter) {
        if (count == tokens.length) {
            tokens = Arrays.copyOf(tokens, count * 2);
            ends = Arrays.copyOf(ends, count * 2 + 1);
            clean = Arrays.copyOf(clean, count * 2 + 1);
        }
        tokens[count] = token;
        text.append(piece);
        count++;
        ends[count] = text.length();
        clean[count] = cleanAfter && count <= divergedAt;
    }

    private void dropPending() {
        shorten(decoded);
    }

    private void shorten(int to) {
        if (to < count) {
            count = to;
            text.setLength(ends[count]);
            if (count <= divergedAt) {
                divergedAt = Integer.MAX_VALUE;
            }
        }
    }
}
