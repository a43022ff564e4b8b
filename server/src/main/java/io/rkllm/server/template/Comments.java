package io.rkllm.server.template;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Template comments, taken out with the whitespace Jinja takes with them. In Jinja a comment is a token of its own:
 * lstrip_blocks removes the indent before it, trim_blocks the newline after it, and a {@code {%-} after it strips
 * only back to the comment. Jinjava strips through it into the text before (Seed-OSS's
 * {@code description }}\n\n    {# Args #}\n    {%- if %}} lost its blank line). Each comment becomes an empty
 * expression, which stops a strip as the comment did.
 */
final class Comments {
    private static final Pattern COMMENT = Pattern.compile("\\{#([-+]?)(.*?)([-+]?)#}", Pattern.DOTALL);
    private static final String BARRIER = "{{ '' }}";

    private Comments() {
    }

    static String rewrite(String source) {
        Matcher m = COMMENT.matcher(source);
        StringBuilder out = new StringBuilder();
        int from = 0;
        while (m.find()) {
            if (m.start() < from) {
                continue;
            }
            out.append(source, from, m.start());
            if (m.group(1).equals("-")) {
                stripTrailing(out, false);
            } else if (!m.group(1).equals("+")) {
                stripTrailing(out, true); // lstrip_blocks: the indent, when the comment starts its line
            }
            out.append(BARRIER);
            from = m.end();
            if (m.group(3).equals("-")) {
                while (from < source.length() && Character.isWhitespace(source.charAt(from))) {
                    from++;
                }
            } else if (!m.group(3).equals("+")) { // trim_blocks: one newline
                if (source.startsWith("\r\n", from)) {
                    from += 2;
                } else if (from < source.length() && source.charAt(from) == '\n') {
                    from++;
                }
            }
        }
        out.append(source.substring(from));
        return out.toString();
    }

    /** All trailing whitespace, or (onlyIndent) the spaces and tabs after the last newline when nothing else is. */
    private static void stripTrailing(StringBuilder out, boolean onlyIndent) {
        int end = out.length();
        int i = end;
        while (i > 0 && (onlyIndent ? out.charAt(i - 1) == ' ' || out.charAt(i - 1) == '\t'
                : Character.isWhitespace(out.charAt(i - 1)))) {
            i--;
        }
        if (onlyIndent && i > 0 && out.charAt(i - 1) != '\n') {
            return;
        }
        out.setLength(i);
    }
}
