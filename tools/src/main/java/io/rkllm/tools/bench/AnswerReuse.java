package io.rkllm.tools.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * How much of the previous answer a follow-up found in the cache: the tokens it reused beyond the previous turn's
 * prompt, as a share of the previous answer's tokens (0 to 1). An engine whose cache holds the conversation as it
 * was generated reuses all of it; one that matches only the previous prompt, none.
 */
final class AnswerReuse {
    private AnswerReuse() {
    }

    /**
     * @param previousPrompt the previous turn's prompt tokens (reused and prefilled)
     * @param previousAnswer the previous turn's answer tokens
     * @param reused the follow-up's reused tokens
     */
    static OptionalDouble of(int previousPrompt, int previousAnswer, int reused) {
        if (previousAnswer <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(Math.clamp((double) (reused - previousPrompt) / previousAnswer, 0, 1));
    }

    /** A share as the tables write it ({@code 97 %}; {@code -} for a first turn). */
    static String cell(OptionalDouble share) {
        return share.isPresent() ? String.format(Locale.ROOT, "%.0f %%", 100 * share.getAsDouble()) : "-";
    }

    /** The median and the lowest of the follow-ups' shares, in words. */
    static String summary(double[] shares) {
        if (shares.length == 0) {
            return "no follow-up";
        }
        double[] sorted = shares.clone();
        Arrays.sort(sorted);
        double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        return String.format(Locale.ROOT, "median %.0f %%, lowest %.0f %% over %d follow-ups", 100 * median,
                100 * sorted[0], sorted.length);
    }
}
