package io.rkllm.server.pipeline;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Estimates token counts before a prompt reaches the runtime (which has no tokenizer call), and
 * calibrates itself per model from the runtime's exact prefill counts: ASCII text is counted at a
 * learned characters-per-token ratio, every other code point as one token (CJK and emoji are close
 * to that in the tokenizers of the models served here).
 */
public final class TokenEstimator {
    /** Starting ratio; English BPE text runs near 4, so 3.5 errs on the side of overestimating. */
    static final double INITIAL_ASCII_CHARS_PER_TOKEN = 3.5;
    private static final double LEARNING_RATE = 0.3;

    private final ConcurrentMap<String, Double> ratios = new ConcurrentHashMap<>();

    public int estimate(String model, String text) {
        return estimate(text, ratio(model));
    }

    /** The estimate of a text of that size: the same as {@link #estimate(String, String)} of the text. */
    int estimate(String model, Size size) {
        return (int) Math.ceil(size.ascii() / ratio(model)) + (int) size.other();
    }

    /**
     * What the estimate is made of: ASCII characters and other code points. Sizes add up the way texts
     * concatenate, so the estimate of many ways to join the same pieces costs one pass over the pieces.
     */
    record Size(long ascii, long other) {
        static final Size ZERO = new Size(0, 0);

        static Size of(String text) {
            int[] counts = count(text);
            return new Size(counts[0], counts[1]);
        }

        Size plus(Size more) {
            return new Size(ascii + more.ascii, other + more.other);
        }

        Size minus(Size less) {
            return new Size(ascii - less.ascii, other - less.other);
        }
    }

    public double ratio(String model) {
        return ratios.getOrDefault(model, INITIAL_ASCII_CHARS_PER_TOKEN);
    }

    /**
     * Learns from a run whose prefill is known to have covered exactly {@code text}.
     * Runs too short to say much are ignored.
     */
    public void calibrate(String model, String text, int prefillTokens) {
        int[] counts = count(text);
        int asciiTokens = prefillTokens - counts[1];
        if (counts[0] < 200 || asciiTokens <= 0) {
            return;
        }
        double observed = Math.clamp((double) counts[0] / asciiTokens, 1.5, 8.0);
        ratios.merge(model, observed, (old, fresh) -> old + LEARNING_RATE * (fresh - old));
    }

    static int estimate(String text, double asciiCharsPerToken) {
        int[] counts = count(text);
        return (int) Math.ceil(counts[0] / asciiCharsPerToken) + counts[1];
    }

    /** ASCII characters and other code points of {@code text}. */
    private static int[] count(String text) {
        int ascii = 0;
        int other = 0;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (cp < 128) {
                ascii++;
            } else {
                other++;
            }
        }
        return new int[] {ascii, other};
    }
}
