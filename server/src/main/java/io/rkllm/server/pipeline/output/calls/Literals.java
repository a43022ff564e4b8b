package io.rkllm.server.pipeline.output.calls;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.output.CallJson;

/**
 * Values written in a language that is almost JSON, read into JSON: Python's literals (LFM2's calls: quotes of
 * either kind, {@code True}/{@code False}/{@code None}) or Gemma 4's (strings between {@code <|"|>} markers, bare
 * keys). One reader a text; {@link #value()} throws {@link IllegalArgumentException} at the first thing it cannot
 * read.
 */
final class Literals {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Which of the two languages. */
    enum Dialect {
        PYTHON, GEMMA
    }

    static final String GEMMA_QUOTE = "<|\"|>";
    /** Lists and objects nested deeper than this are refused (a model that loops writes "[[[[..."). */
    static final int MAX_DEPTH = 64;

    private final String text;
    private final Dialect dialect;
    private int at;
    private int depth;

    Literals(String text, int from, Dialect dialect) {
        this.text = text;
        this.at = from;
        this.dialect = dialect;
    }

    int position() {
        return at;
    }

    /** Skips whitespace; returns the next character, or 0 at the end. */
    char peek() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
        return at < text.length() ? text.charAt(at) : 0;
    }

    /** Consumes {@code c} after whitespace, or fails. */
    void expect(char c) {
        if (peek() != c) {
            throw new IllegalArgumentException("expected '" + c + "' at " + at);
        }
        at++;
    }

    /** A name: letters, digits, underscores, dots, hyphens. */
    String name() {
        peek();
        int start = at;
        while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || "_.-".indexOf(text.charAt(at)) >= 0)) {
            at++;
        }
        if (start == at) {
            throw new IllegalArgumentException("expected a name at " + at);
        }
        return text.substring(start, at);
    }

    JsonNode value() {
        char c = peek();
        if (dialect == Dialect.GEMMA && text.startsWith(GEMMA_QUOTE, at)) {
            int end = text.indexOf(GEMMA_QUOTE, at + GEMMA_QUOTE.length());
            if (end < 0) {
                throw new IllegalArgumentException("unclosed string");
            }
            String s = text.substring(at + GEMMA_QUOTE.length(), end);
            at = end + GEMMA_QUOTE.length();
            return NODES.textNode(s);
        }
        if (c == '"' || c == '\'' && dialect == Dialect.PYTHON) {
            return NODES.textNode(quoted(c));
        }
        if (c == '[' || c == '{') {
            if (++depth > MAX_DEPTH) {
                throw new IllegalArgumentException("nested deeper than " + MAX_DEPTH);
            }
            try {
                return c == '[' ? list() : dict();
            } finally {
                depth--;
            }
        }
        int start = at;
        while (at < text.length() && ",]})".indexOf(text.charAt(at)) < 0 && !Character.isWhitespace(text.charAt(at))) {
            at++;
        }
        String word = text.substring(start, at);
        return switch (word) {
            case "True", "true" -> NODES.booleanNode(true);
            case "False", "false" -> NODES.booleanNode(false);
            case "None", "null" -> NODES.nullNode();
            default -> {
                JsonNode number = CallJson.readTree(word);
                if (number == null || !number.isNumber()) {
                    throw new IllegalArgumentException("not a value: " + word);
                }
                yield number;
            }
        };
    }

    private ArrayNode list() {
        ArrayNode list = NODES.arrayNode();
        expect('[');
        if (peek() == ']') {
            at++;
            return list;
        }
        while (true) {
            list.add(value());
            char c = peek();
            at++;
            if (c == ']') {
                return list;
            }
            if (c != ',') {
                throw new IllegalArgumentException("expected ',' or ']' at " + (at - 1));
            }
        }
    }

    private ObjectNode dict() {
        ObjectNode object = NODES.objectNode();
        expect('{');
        if (peek() == '}') {
            at++;
            return object;
        }
        while (true) {
            char c = peek();
            String key = c == '"' || c == '\'' ? quoted(c)
                    : dialect == Dialect.GEMMA && text.startsWith(GEMMA_QUOTE, at) ? value().asText() : name();
            expect(':');
            object.set(key, value());
            c = peek();
            at++;
            if (c == '}') {
                return object;
            }
            if (c != ',') {
                throw new IllegalArgumentException("expected ',' or '}' at " + (at - 1));
            }
        }
    }

    /** A quoted string with Python's (and JSON's) backslash escapes. */
    private String quoted(char quote) {
        StringBuilder out = new StringBuilder();
        at++;
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == quote) {
                return out.toString();
            }
            if (c != '\\' || at >= text.length()) {
                out.append(c);
                continue;
            }
            char e = text.charAt(at++);
            switch (e) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    if (at + 4 > text.length()) {
                        throw new IllegalArgumentException("bad escape");
                    }
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                default -> out.append(e); // \\, \', \", and any other character as itself
            }
        }
        throw new IllegalArgumentException("unclosed string");
    }
}
