package io.rkllm.server.pipeline.output.calls;

import java.util.ArrayList;
import java.util.List;

/** The spans between an opening and a closing tag in a block's text, in order. */
final class TagSpans {
    private TagSpans() {
    }

    /**
     * The text between each {@code open} and the next {@code close}; null when a span is not closed, or when text
     * other than whitespace lies outside the spans (a block holds calls and nothing else).
     */
    static List<String> of(String text, String open, String close) {
        List<String> spans = new ArrayList<>();
        int at = 0;
        while (true) {
            int start = text.indexOf(open, at);
            if (start < 0) {
                return text.substring(at).isBlank() ? spans : null;
            }
            if (!text.substring(at, start).isBlank()) {
                return null;
            }
            int end = text.indexOf(close, start + open.length());
            if (end < 0) {
                return null;
            }
            spans.add(text.substring(start + open.length(), end));
            at = end + close.length();
        }
    }

    /** A value's text without the one line break a format writes after its opening and before its closing tag. */
    static String value(String text) {
        String v = text.startsWith("\n") ? text.substring(1) : text;
        return v.endsWith("\n") ? v.substring(0, v.length() - 1) : v;
    }
}
