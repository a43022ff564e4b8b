package io.rkllm.tools.bench;

/**
 * The simulated runtime's token-counting rule (docs/simulated-runtime.md, "Tokenizer"), so the
 * bench can state the minimum prefill a perfect cache would need on that runtime.
 */
final class SimTokenCount {
    private SimTokenCount() {
    }

    static int count(String text) {
        int tokens = 0;
        int i = 0;
        int n = text.length();
        while (i < n) {
            int start = i;
            while (i < n && isSpace(text.charAt(i))) {
                i++;
            }
            if (i == n) {
                return tokens + (i > start ? 1 : 0);
            }
            char c = text.charAt(i);
            if (c == '<' && i + 1 < n && text.charAt(i + 1) == '|') {
                int end = text.indexOf("|>", i + 2);
                if (end > 0 && end + 2 - i <= 32 && noSpaceOrAngle(text, i + 2, end)) {
                    tokens++;
                    i = end + 2;
                    continue;
                }
            }
            if (isAlnum(c)) {
                int runStart = i;
                while (i < n && isAlnum(text.charAt(i))) {
                    i++;
                }
                tokens += (i - runStart + 4) / 5;
                continue;
            }
            tokens++;
            i += Character.charCount(text.codePointAt(i));
        }
        return tokens;
    }

    private static boolean noSpaceOrAngle(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (isSpace(c) || c == '<') {
                return false;
            }
        }
        return true;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static boolean isAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
}
