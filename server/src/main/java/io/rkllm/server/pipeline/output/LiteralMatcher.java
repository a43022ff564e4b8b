package io.rkllm.server.pipeline.output;

import java.util.List;

/**
 * Finds where a stream of text must stop being passed on: the first position at which one of a few literal
 * patterns matches, or might still match once more text arrives.
 *
 * <p>Patterns are given in priority order. At each position the first pattern (in that order) that matches
 * wins, but only once every pattern before it is known not to match there; so the outcome for a text is the
 * same however it was split into pieces. A position inside a surrogate pair is never a match start.
 */
final class LiteralMatcher {

    /** {@link Hit#pattern()} when nothing matched. */
    static final int NONE = -1;

    /**
     * Where scanning stopped.
     *
     * @param start   the position of the match, or where text was held back (the end of the text when all
     *                of it is free of patterns)
     * @param pattern the index of the pattern that matches at {@code start}, or {@link #NONE}
     */
    record Hit(int start, int pattern) {
        boolean matched() {
            return pattern != NONE;
        }
    }

    private final String[] patterns;
    /** Every pattern's first character, to skip other characters with one look-up. */
    private final String firstChars;

    LiteralMatcher(List<String> patternsInPriorityOrder) {
        this.patterns = patternsInPriorityOrder.toArray(String[]::new);
        StringBuilder first = new StringBuilder();
        for (String pattern : patterns) {
            if (pattern.isEmpty()) {
                throw new IllegalArgumentException("empty pattern");
            }
            if (first.indexOf(pattern.substring(0, 1)) < 0) {
                first.append(pattern.charAt(0));
            }
        }
        this.firstChars = first.toString();
    }

    boolean isEmpty() {
        return patterns.length == 0;
    }

    int size() {
        return patterns.length;
    }

    String pattern(int index) {
        return patterns[index];
    }

    /**
     * Scans {@code text} from {@code from}.
     *
     * @param atEnd no more text will come: a pattern cut off by the end of the text does not match
     */
    Hit scan(CharSequence text, int from, boolean atEnd) {
        int length = text.length();
        if (patterns.length == 0) {
            return new Hit(length, NONE);
        }
        for (int i = from; i < length; i++) {
            char c = text.charAt(i);
            if (firstChars.indexOf(c) < 0
                    || Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1))) {
                continue;
            }
            for (int p = 0; p < patterns.length; p++) {
                int state = compare(text, i, patterns[p]);
                if (state == MATCH) {
                    return new Hit(i, p);
                }
                if (state == PARTIAL && !atEnd) {
                    return new Hit(i, NONE); // undecided: this pattern (and all after it) must wait
                }
            }
        }
        return new Hit(length, NONE);
    }

    /** {@link #matchAt} when a pattern may still match there once more text arrives. */
    static final int UNDECIDED = -2;

    /**
     * The pattern that matches exactly at {@code at} (the first in priority order), {@link #NONE} when none can,
     * {@link #UNDECIDED} when one may once more text arrives (never when {@code atEnd}).
     */
    int matchAt(CharSequence text, int at, boolean atEnd) {
        for (int p = 0; p < patterns.length; p++) {
            int state = compare(text, at, patterns[p]);
            if (state == MATCH) {
                return p;
            }
            if (state == PARTIAL && !atEnd) {
                return UNDECIDED;
            }
        }
        return NONE;
    }

    private static final int MISMATCH = 0;
    private static final int PARTIAL = 1;
    private static final int MATCH = 2;

    private static int compare(CharSequence text, int at, String pattern) {
        int available = Math.min(pattern.length(), text.length() - at);
        for (int k = 0; k < available; k++) {
            if (text.charAt(at + k) != pattern.charAt(k)) {
                return MISMATCH;
            }
        }
        return available == pattern.length() ? MATCH : PARTIAL;
    }

    /** {@code body} less the start of a pattern it ends with: an unclosed block may end so ("...}&lt;/tool_c"). */
    String withoutPartialMatch(String body) {
        for (int p = 0; p < size(); p++) {
            String close = pattern(p);
            for (int n = Math.min(close.length() - 1, body.length()); n > 0; n--) {
                if (body.endsWith(close.substring(0, n))) {
                    return body.substring(0, body.length() - n);
                }
            }
        }
        return body;
    }

    /** How many characters at the end of {@code body} {@link #withoutPartialMatch} leaves out, else 0. */
    int partialAtEnd(String body) {
        return body.length() - withoutPartialMatch(body).length();
    }
}
