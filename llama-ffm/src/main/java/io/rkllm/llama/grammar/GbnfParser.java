package io.rkllm.llama.grammar;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads GBNF text with the syntax llama.cpp's grammar parser accepts (grammars/README.md of llama.cpp; checked
 * against build 4916): {@code name ::= alternatives} rules, literals, character classes, the backslash escapes
 * {@code x}, {@code u} and {@code U} with hexadecimal digits and {@code t r n \\ " [ ]}, {@code .}, groups,
 * {@code * + ?} and {@code {m}, {m,}, {m,n}}, comments after {@code #}, newlines inside groups and after
 * {@code |}. What that parser refuses is refused here with the position; token references ({@code <...>}, newer
 * builds only) are refused too.
 */
final class GbnfParser {
    private static final int MAX_REPEAT = 100_000;

    private final String text;
    private int pos;

    private GbnfParser(String text) {
        this.text = text;
    }

    static Gbnf parse(String text) {
        GbnfParser parser = new GbnfParser(text);
        Map<String, Gbnf.Alternatives> rules = new LinkedHashMap<>();
        parser.skipSpace(true);
        while (!parser.atEnd()) {
            int start = parser.pos;
            String name = parser.name();
            parser.skipSpace(false);
            if (!parser.text.startsWith("::=", parser.pos)) {
                throw parser.error("expecting ::=");
            }
            parser.pos += 3;
            parser.skipSpace(true);
            Gbnf.Alternatives body = parser.alternatives(false);
            if (rules.putIfAbsent(name, body) != null) {
                parser.pos = start;
                throw parser.error("rule '" + name + "' is defined twice");
            }
            parser.endOfRule();
            parser.skipSpace(true);
        }
        return new Gbnf(rules);
    }

    private Gbnf.Alternatives alternatives(boolean nested) {
        List<Gbnf.Sequence> choices = new ArrayList<>();
        choices.add(sequence(nested));
        while (peek() == '|') {
            pos++;
            skipSpace(true);
            choices.add(sequence(nested));
        }
        return new Gbnf.Alternatives(List.copyOf(choices));
    }

    private Gbnf.Sequence sequence(boolean nested) {
        List<Gbnf.Item> items = new ArrayList<>();
        while (!atEnd()) {
            char c = peek();
            Gbnf.Item item;
            if (c == '"') {
                item = literal();
            } else if (c == '[') {
                item = charClass();
            } else if (c == '.') {
                pos++;
                item = new Gbnf.AnyChar();
            } else if (c == '(') {
                pos++;
                skipSpace(true);
                Gbnf.Alternatives inner = alternatives(true);
                if (peek() != ')') {
                    throw error("expecting ')'");
                }
                pos++;
                item = new Gbnf.Group(inner);
            } else if (isWordChar(c)) {
                item = new Gbnf.RuleRef(name());
            } else if (c == '*' || c == '+' || c == '?' || c == '{') {
                throw error("expecting an item before '" + c + "'");
            } else if (c == '<') {
                throw error("token references (<...>) are not supported by every llama.cpp build");
            } else {
                break;
            }
            skipSpace(nested);
            item = quantified(item, nested);
            items.add(item);
        }
        return new Gbnf.Sequence(List.copyOf(items));
    }

    private Gbnf.Item quantified(Gbnf.Item item, boolean nested) {
        while (!atEnd()) {
            char c = peek();
            if (c == '*') {
                item = new Gbnf.Repeat(item, 0, -1);
            } else if (c == '+') {
                item = new Gbnf.Repeat(item, 1, -1);
            } else if (c == '?') {
                item = new Gbnf.Repeat(item, 0, 1);
            } else if (c == '{') {
                pos++;
                skipSpace(false);
                int min = integer();
                int max = min;
                skipSpace(false);
                if (peek() == ',') {
                    pos++;
                    skipSpace(false);
                    max = Character.isDigit(peek()) ? integer() : -1;
                    skipSpace(false);
                }
                if (peek() != '}') {
                    throw error("expecting '}'");
                }
                if (max != -1 && max < min) {
                    throw error("repetition {" + min + "," + max + "} has its maximum below its minimum");
                }
                item = new Gbnf.Repeat(item, min, max);
            } else {
                return item;
            }
            pos++;
            skipSpace(nested);
        }
        return item;
    }

    private int integer() {
        int start = pos;
        while (Character.isDigit(peek()) && peek() < 128) {
            pos++;
        }
        if (start == pos) {
            throw error("expecting an integer");
        }
        if (pos - start > 6 || Integer.parseInt(text, start, pos, 10) > MAX_REPEAT) {
            pos = start;
            throw error("repetition count above " + MAX_REPEAT);
        }
        return Integer.parseInt(text, start, pos, 10);
    }

    private Gbnf.Literal literal() {
        pos++;
        StringBuilder out = new StringBuilder();
        while (peek() != '"') {
            if (atEnd()) {
                throw error("unterminated literal");
            }
            out.appendCodePoint(character());
        }
        pos++;
        return new Gbnf.Literal(out.toString());
    }

    private Gbnf.CharClass charClass() {
        pos++;
        boolean negated = peek() == '^';
        if (negated) {
            pos++;
        }
        List<int[]> ranges = new ArrayList<>();
        while (peek() != ']') {
            if (atEnd()) {
                throw error("unterminated character class");
            }
            int from = character();
            int to = from;
            if (peek() == '-' && pos + 1 < text.length() && text.charAt(pos + 1) != ']') {
                pos++;
                to = character();
                if (to < from) {
                    throw error("character range ends below its start");
                }
            }
            ranges.add(new int[] {from, to});
        }
        pos++;
        return new Gbnf.CharClass(negated, List.copyOf(ranges));
    }

    /** One character of a literal or a class: an escape or a code point. */
    private int character() {
        if (peek() != '\\') {
            int c = text.codePointAt(pos);
            pos += Character.charCount(c);
            return c;
        }
        if (pos + 1 >= text.length()) {
            throw error("unterminated escape");
        }
        char e = text.charAt(pos + 1);
        pos += 2;
        return switch (e) {
            case 'x' -> hex(2);
            case 'u' -> hex(4);
            case 'U' -> hex(8);
            case 't' -> '\t';
            case 'r' -> '\r';
            case 'n' -> '\n';
            case '\\', '"', '[', ']' -> e;
            default -> {
                pos -= 2;
                throw error("unknown escape");
            }
        };
    }

    private int hex(int digits) {
        if (pos + digits > text.length()) {
            throw error("expecting " + digits + " hex digits");
        }
        int value = 0;
        for (int i = 0; i < digits; i++) {
            int d = Character.digit(text.charAt(pos + i), 16);
            if (d < 0 || text.charAt(pos + i) > 127) {
                throw error("expecting " + digits + " hex digits");
            }
            value = value * 16 + d;
        }
        if (value > Character.MAX_CODE_POINT || value < 0) {
            throw error("code point beyond U+10FFFF");
        }
        pos += digits;
        return value;
    }

    private String name() {
        int start = pos;
        while (!atEnd() && isWordChar(peek())) {
            pos++;
        }
        if (start == pos) {
            throw error("expecting a rule name");
        }
        return text.substring(start, pos);
    }

    private void endOfRule() {
        if (atEnd()) {
            return;
        }
        char c = peek();
        if (c == '\r') {
            pos += pos + 1 < text.length() && text.charAt(pos + 1) == '\n' ? 2 : 1;
        } else if (c == '\n') {
            pos++;
        } else {
            throw error("expecting a newline or the end");
        }
    }

    /** Spaces, tabs and comments; newlines too where the syntax allows them. */
    private void skipSpace(boolean newlines) {
        while (!atEnd()) {
            char c = peek();
            if (c == ' ' || c == '\t' || (newlines && (c == '\r' || c == '\n'))) {
                pos++;
            } else if (c == '#') {
                while (!atEnd() && peek() != '\r' && peek() != '\n') {
                    pos++;
                }
            } else {
                return;
            }
        }
    }

    private static boolean isWordChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
    }

    private boolean atEnd() {
        return pos >= text.length();
    }

    private char peek() {
        return atEnd() ? '\0' : text.charAt(pos);
    }

    private InvalidGrammarException error(String what) {
        int line = 1;
        int column = 1;
        for (int i = 0; i < Math.min(pos, text.length()); i++) {
            if (text.charAt(i) == '\n') {
                line++;
                column = 1;
            } else {
                column++;
            }
        }
        String near = text.substring(Math.min(pos, text.length()), Math.min(text.length(), pos + 20))
                .replace("\n", "\\n");
        return new InvalidGrammarException("the grammar cannot be parsed: " + what + " at line " + line + ", column "
                + column + (near.isEmpty() ? "" : " ('" + near + "')"));
    }
}
