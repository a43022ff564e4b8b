package io.rkllm.llama.grammar;

import java.util.List;

/**
 * GBNF spellings: literals and character classes, written with only the escapes every llama.cpp build reads
 * ({@code \" \\ \n \r \t} and hexadecimal: build 4916 has no {@code \-} or {@code \/}), and rule names.
 */
final class GbnfText {
    private GbnfText() {
    }

    /**
     * A literal matching exactly {@code text}. Not {@link io.rkllm.llama.text.JsonString}: GBNF reads neither
     * {@code \b} nor {@code \f}, and a code point beyond ASCII is safest as one hexadecimal escape.
     */
    static String literal(String text) {
        StringBuilder out = new StringBuilder("\"");
        text.codePoints().forEach(c -> {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c >= 0x20 && c < 0x7F) {
                        out.append((char) c);
                    } else {
                        hex(out, c);
                    }
                }
            }
        });
        return out.append('"').toString();
    }

    /** A class of the inclusive ranges {@code {from, to}}; {@code negated} for everything else. */
    static String charClass(List<int[]> ranges, boolean negated) {
        StringBuilder out = new StringBuilder(negated ? "[^" : "[");
        for (int[] range : ranges) {
            classChar(out, range[0]);
            if (range[1] != range[0]) {
                if (range[1] != range[0] + 1) {
                    out.append('-');
                }
                classChar(out, range[1]);
            }
        }
        return out.append(']').toString();
    }

    /** A class of the code points from {@code from} to {@code to}. */
    static String range(int from, int to) {
        return charClass(List.of(new int[] {from, to}), false);
    }

    private static void classChar(StringBuilder out, int c) {
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            out.append((char) c);
        } else {
            hex(out, c);
        }
    }

    private static void hex(StringBuilder out, int c) {
        if (c <= 0xFF) {
            out.append(String.format("\\x%02X", c));
        } else if (c <= 0xFFFF) {
            out.append(String.format("\\u%04X", c));
        } else {
            out.append(String.format("\\U%08X", c));
        }
    }

    /** A rule name from a schema's words: letters, digits and dashes only. */
    static String ruleName(String hint) {
        String name = hint.replaceAll("[^A-Za-z0-9-]+", "-").replaceAll("-{2,}", "-").replaceAll("^-|-$", "");
        return name.isEmpty() ? "r" : name;
    }

    /** {@code item} repeated from {@code min} to {@code max} times ({@code max} -1: without bound). */
    static String repeat(String item, int min, int max) {
        if (max == 0) {
            return "";
        }
        if (min == 0 && max == 1) {
            return item + "?";
        }
        if (max == -1) {
            return min == 0 ? item + "*" : min == 1 ? item + "+" : item + "{" + min + ",}";
        }
        if (min == max) {
            return min == 1 ? item : item + "{" + min + "}";
        }
        return item + "{" + min + "," + max + "}";
    }

    /** {@code expression} as one item that a quantifier can follow: in parentheses unless it is one already. */
    static String item(String expression) {
        return isItem(expression) ? expression : "(" + expression + ")";
    }

    // GBNF's own scan, not the server's BracketScanner (which llama-ffm cannot see): a character class is a second
    // kind of literal, and a backslash escapes the next character outside literals too
    private static boolean isItem(String e) {
        if (e.matches("[A-Za-z0-9-]+")) {
            return true;
        }
        char open = e.isEmpty() ? ' ' : e.charAt(0);
        char close = switch (open) {
            case '"' -> '"';
            case '[' -> ']';
            case '(' -> ')';
            default -> 0;
        };
        if (close == 0) {
            return false;
        }
        int depth = 0;
        boolean inLiteral = false;
        boolean inClass = false;
        for (int i = 0; i < e.length(); i++) {
            char c = e.charAt(i);
            if (c == '\\') {
                i++;
            } else if (inLiteral) {
                inLiteral = c != '"';
            } else if (inClass) {
                inClass = c != ']';
            } else if (c == '"') {
                inLiteral = true;
            } else if (c == '[') {
                inClass = true;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            }
            boolean closed = !inLiteral && !inClass && depth == 0;
            if (closed && i > 0 && i < e.length() - 1) {
                return false; // the first item ends before the expression does
            }
            if (closed && i == 0 && open != '"' && open != '[') {
                return false;
            }
        }
        return true;
    }

    /** Alternatives as one item: bare when there is one, in parentheses otherwise. */
    static String group(List<String> alternatives) {
        return alternatives.size() == 1 ? alternatives.getFirst() : "(" + String.join(" | ", alternatives) + ")";
    }
}
