package io.rkllm.rag;

/**
 * Character-class helpers shared by the cleaner and the selector: CJK detection, word counting in the
 * same way as the evaluation scorer (a CJK ideograph or kana is one word), and a length measure that
 * makes CJK text comparable with Latin text.
 */
final class Scripts {
    private Scripts() {
    }

    /** Han ideographs (incl. extension A and compatibility), hiragana, katakana. */
    static boolean isCjk(int cp) {
        return (cp >= 0x3040 && cp <= 0x30FF)
                || (cp >= 0x3400 && cp <= 0x4DBF)
                || (cp >= 0x4E00 && cp <= 0x9FFF)
                || (cp >= 0xF900 && cp <= 0xFAFF);
    }

    static boolean isHiragana(int cp) {
        return cp >= 0x3040 && cp <= 0x309F;
    }

    static boolean isHangul(int cp) {
        return cp >= 0xAC00 && cp <= 0xD7AF;
    }

    /** Number of words: runs of letters/digits, each CJK character counting as one word. */
    static int countWords(String s) {
        int n = 0;
        boolean inWord = false;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (isCjk(cp)) {
                n++;
                inWord = false;
            } else if (Character.isLetterOrDigit(cp)) {
                if (!inWord) {
                    n++;
                }
                inWord = true;
            } else {
                inWord = false;
            }
        }
        return n;
    }

    /** Number of CJK characters in s. */
    static int countCjk(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (isCjk(cp)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Length in "Latin-equivalent characters": a CJK character (or a Hangul syllable) carries about as
     * much text as three Latin characters (one Chinese word is ~1.7 characters, one English word ~6
     * with its space).
     */
    static int effectiveLength(String s) {
        int dense = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (isCjk(cp) || isHangul(cp)) {
                dense++;
            }
        }
        return s.codePointCount(0, s.length()) + 2 * dense;
    }
}
