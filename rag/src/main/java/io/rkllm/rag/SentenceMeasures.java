package io.rkllm.rag;

/** Measures of a line of text that tell prose from the rest of a page: sentence punctuation, sentence structure. */
final class SentenceMeasures {
    /** Function-word density above which a line reads as prose. */
    static final double PROSE_DENSITY = 0.30;

    private SentenceMeasures() {
    }

    static boolean hasSentencePunctuation(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '。' || c == '！' || c == '？' || c == '，' || c == '、') {
                return true;
            }
            if ((c == '.' || c == '!' || c == '?') && (i + 1 == s.length() || s.charAt(i + 1) == ' '
                    || s.charAt(i + 1) == '"' || s.charAt(i + 1) == '”' || s.charAt(i + 1) == ')')) {
                // not "Mr." style abbreviations only: require a preceding word of 2+ letters
                if (i >= 2 && Character.isLetterOrDigit(s.charAt(i - 1))) {
                    return true;
                }
                if (i >= 1 && (s.charAt(i - 1) == '"' || s.charAt(i - 1) == '”' || s.charAt(i - 1) == ')')) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Prose evidence that does not depend on knowing the language: mostly lower-case words with
     * sentence punctuation and a moderate number of commas (a tag list has a comma per word).
     */
    /**
     * Prose evidence that does not depend on knowing the language: mostly lower-case words with
     * sentence punctuation and a moderate number of commas (a tag list has a comma per word).
     */
    static double structuralDensity(String t, int words, boolean sentence) {
        if (words < 8 || !sentence) {
            return 0;
        }
        int lower = 0;
        int cased = 0;
        int commas = 0;
        boolean start = true;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (Character.isLetter(c)) {
                if (start && (Character.isUpperCase(c) || Character.isLowerCase(c))) {
                    cased++;
                    if (Character.isLowerCase(c)) {
                        lower++;
                    }
                }
                start = false;
            } else if (!Character.isDigit(c)) {
                start = true;
                if (c == ',' || c == '，' || c == '、') {
                    commas++;
                }
            }
        }
        if (commas > 0.25 * words) {
            return 0;
        }
        if (cased < 3 && Scripts.countCjk(t) == 0) {
            // a script without letter case (Korean, Arabic, Hebrew, Thai, Hindi...): sentences are the evidence
            return PROSE_DENSITY + 0.02;
        }
        if (cased < 8 || lower < 0.6 * cased) {
            return 0;
        }
        return PROSE_DENSITY + 0.02;
    }
}
