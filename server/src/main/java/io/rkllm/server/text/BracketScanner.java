package io.rkllm.server.text;

/**
 * Walks text one character at a time, telling the brackets of code from characters inside string literals:
 * finding where the JSON a model wrote ends, or the top level of a template expression. A backslash inside a
 * literal escapes the character after it (so {@code "a\\"} ends at its last quote); outside one it is text.
 * A closing bracket that does not match the innermost open one is text too, as a model's stray one is.
 * One instance a walk: it holds the walk's position.
 */
public final class BracketScanner {
    /** What opens a string literal and which brackets nest. */
    public enum Syntax {
        /** JSON: double quotes only (an apostrophe is text), objects and arrays. */
        JSON("\"", "{}[]"),
        /** Jinja (Python) expressions: single or double quotes, and calls, lists and dicts. */
        JINJA("\"'", "()[]{}");

        private final String quotes;
        private final String brackets;

        Syntax(String quotes, String brackets) {
            this.quotes = quotes;
            this.brackets = brackets;
        }
    }

    private final String text;
    private final Syntax syntax;
    private final StringBuilder closers = new StringBuilder();
    private int index;
    private char quote;
    private boolean escaped;
    private boolean code;
    private boolean closes;

    /** A walk of {@code text} from {@code from}; {@link #next()} moves onto the first character. */
    public BracketScanner(String text, int from, Syntax syntax) {
        this.text = text;
        this.syntax = syntax;
        this.index = from - 1;
    }

    /** Moves onto the next character; false when the text has ended (the state stays that of its last one). */
    public boolean next() {
        if (index + 1 >= text.length()) {
            return false;
        }
        char c = text.charAt(++index);
        code = false;
        closes = false;
        if (quote != 0) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == quote) {
                quote = 0;
            }
            return true;
        }
        int bracket = syntax.brackets.indexOf(c);
        if (syntax.quotes.indexOf(c) >= 0) {
            quote = c;
        } else if (bracket >= 0 && bracket % 2 == 0) {
            closers.append(syntax.brackets.charAt(bracket + 1));
            code = true;
        } else if (bracket >= 0 && !closers.isEmpty() && closers.charAt(closers.length() - 1) == c) {
            closers.setLength(closers.length() - 1);
            code = true;
            closes = true;
        } else {
            code = true;
        }
        return true;
    }

    public int index() {
        return index;
    }

    public char current() {
        return text.charAt(index);
    }

    /** The current character is code: not in a string literal, nor one of its quotes. */
    public boolean inCode() {
        return code;
    }

    /** The current character closes the innermost open bracket. */
    public boolean closes() {
        return closes;
    }

    /** How many brackets are open after the current character. */
    public int depth() {
        return closers.length();
    }

    /** A string literal is open after the current character: at the end, the text was cut inside one. */
    public boolean inLiteral() {
        return quote != 0;
    }

    /** The closing brackets the open ones want, innermost first. */
    public String closers() {
        return new StringBuilder(closers).reverse().toString();
    }
}
