package io.rkllm.server.pipeline.output;

/**
 * Removes reasoning from earlier assistant turns before they are sent back to the model: every
 * {@code <think>...</think>} block, a leading {@code ...</think>} (a reply that started inside a think block
 * opened by the prompt), and an unclosed {@code <think>...} at the end (a reply cut off while reasoning).
 * Whitespace right after a removed block goes with it, as {@link OutputScanner} drops it; the result is trimmed.
 */
public final class ThinkStripper {

    private ThinkStripper() {
    }

    public static String strip(String text) {
        String open = OutputScanner.THINK_OPEN;
        String close = OutputScanner.THINK_CLOSE;
        int firstOpen = text.indexOf(open);
        int firstClose = text.indexOf(close);
        if (firstOpen < 0 && firstClose < 0) {
            return text.strip();
        }
        StringBuilder out = new StringBuilder(text.length());
        int from = 0;
        if (firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen)) {
            from = skipWhitespace(text, firstClose + close.length());
        }
        while (from < text.length()) {
            int start = text.indexOf(open, from);
            if (start < 0) {
                out.append(text, from, text.length());
                break;
            }
            out.append(text, from, start);
            int end = text.indexOf(close, start + open.length());
            if (end < 0) {
                break; // unclosed: reasoning to the end
            }
            from = skipWhitespace(text, end + close.length());
        }
        return out.toString().strip();
    }

    private static int skipWhitespace(String text, int from) {
        while (from < text.length() && Character.isWhitespace(text.charAt(from))) {
            from++;
        }
        return from;
    }
}
