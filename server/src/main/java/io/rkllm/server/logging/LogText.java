package io.rkllm.server.logging;

/** Makes text safe for a one-line log record: control characters (CR, LF, ESC...) become visible escapes. */
public final class LogText {
    private LogText() {
    }

    public static String escape(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean control = c < 0x20 && c != '\t' || c == 0x7f || c == '\u2028' || c == '\u2029' || c == '\u0085';
            if (control && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (out != null) {
                if (control) {
                    out.append(switch (c) {
                        case '\n' -> "\\n";
                        case '\r' -> "\\r";
                        default -> String.format("\\u%04x", (int) c);
                    });
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? text : out.toString();
    }
}
