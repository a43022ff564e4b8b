package io.rkllm.server.template;

import io.rkllm.server.text.BracketScanner;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Jinja's filtered loop, {@code {% for item in tools if item.type == "function" %}} (Seed-OSS writes its tools so),
 * which Jinjava parses but never enters: written as a loop over everything with an {@code if} inside, closed before
 * the loop's {@code else} or {@code endfor}. The inserted tags take over the trim markers of the tags they stand
 * beside and sit on the same line, so trim_blocks and lstrip_blocks leave the same whitespace. What differs: inside
 * the body, {@code loop.index} and {@code loop.last} count every item, not only those that pass (the templates
 * seen use neither in a filtered loop).
 */
final class FilteredLoops {
    private static final Pattern TAG = Pattern.compile("\\{%([-+]?)\\s*(for|endfor|if|endif|else)\\b(.*?)([-+]?)%}",
            Pattern.DOTALL);

    private FilteredLoops() {
    }

    static String rewrite(String source) {
        Matcher m = TAG.matcher(source);
        StringBuilder out = new StringBuilder();
        // each open for or if; TRUE for a filtered for whose if is still open
        Deque<Boolean> open = new ArrayDeque<>();
        int from = 0;
        while (m.find()) {
            out.append(source, from, m.start());
            from = m.end();
            String left = m.group(1);
            String keyword = m.group(2);
            String right = m.group(4);
            switch (keyword) {
                case "for" -> {
                    int at = filterAt(m.group(3));
                    if (at < 0) {
                        open.push(false);
                        out.append(m.group());
                    } else {
                        open.push(true);
                        out.append("{%").append(left).append(" for").append(m.group(3), 0, at).append(" %}")
                                .append("{% if ").append(m.group(3).substring(at + 4).strip()).append(' ')
                                .append(right).append("%}");
                    }
                }
                case "if" -> {
                    open.push(false);
                    out.append(m.group());
                }
                case "else", "endfor" -> {
                    boolean filtered = !open.isEmpty() && open.peek();
                    if (filtered) {
                        out.append("{%").append(left).append(" endif %}{% ").append(keyword).append(m.group(3))
                                .append(right).append("%}");
                        open.pop();
                        open.push(false);
                    } else {
                        out.append(m.group());
                    }
                    if (keyword.equals("endfor") && !open.isEmpty()) {
                        open.pop();
                    }
                }
                default -> { // endif
                    if (!open.isEmpty()) {
                        open.pop();
                    }
                    out.append(m.group());
                }
            }
        }
        out.append(source.substring(from));
        return out.toString();
    }

    /** Where {@code " if "} starts the loop's filter: outside strings and brackets; -1 when there is none. */
    private static int filterAt(String header) {
        BracketScanner scanner = new BracketScanner(header, 0, BracketScanner.Syntax.JINJA);
        while (scanner.next()) {
            int i = scanner.index();
            if (scanner.inCode() && scanner.depth() == 0 && Character.isWhitespace(scanner.current())
                    && header.startsWith("if", i + 1) && i + 3 < header.length()
                    && Character.isWhitespace(header.charAt(i + 3))) {
                return i;
            }
        }
        return -1;
    }
}
