package io.rkllm.llama.grammar;

import io.rkllm.llama.text.JsonString;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code pattern} as the grammar of a JSON string's content, for the part of regular expressions that means
 * the same to ECMA-262 (the specification's dialect) and to java.util.regex (what Java validators use):
 * literals, {@code .}, classes ({@code [a-z]}, {@code [^"]}, {@code \d \w \s} and their negations), groups
 * ({@code (...)}, {@code (?:...)}, {@code (?<name>...)}), {@code |}, the quantifiers {@code * + ? {n} {n,} {n,m}}
 * (lazy ones match the same strings), and {@code ^} and {@code $} at the ends. A pattern matches anywhere in the
 * string unless anchored, so an unanchored end becomes any characters. Each character is written as JSON writes
 * it (a quote or a backslash escaped, control characters as escapes). Refused: backreferences, lookaround,
 * word boundaries, Unicode properties, inline flags, possessive quantifiers, anchors elsewhere, and the
 * constructs the two dialects read differently ({@code []}, {@code [^]}, nested classes, a {@code {} that is
 * no quantifier).
 */
final class PatternGrammar {
    private static final int MAX_COUNT = 1000;
    /** What {@code .} matches in both dialects: not the line terminators of either. */
    private static final CharSet DOT = CharSet.chars("\n\r\u0085\u2028\u2029").complement();
    private static final CharSet DIGIT = CharSet.of('0', '9');
    private static final CharSet WORD = CharSet.of('a', 'z').union(CharSet.of('A', 'Z')).union(DIGIT)
            .union(CharSet.single('_'));
    /** java.util.regex's \s; ECMA's is wider, so this is what both match. */
    private static final CharSet SPACE = CharSet.chars(" \t\n\u000B\f\r");

    private final int[] cp;
    private final String pattern;
    private final String at;
    private int pos;
    private int end;

    private PatternGrammar(String pattern, String at) {
        this.pattern = pattern;
        this.cp = pattern.codePoints().toArray();
        this.at = at;
    }

    /** The content between the quotes (may be empty) of a JSON string matching {@code pattern}. */
    static String content(String pattern, String at, String anyChar) {
        return new PatternGrammar(pattern, at).translate(anyChar);
    }

    private String translate(String anyChar) {
        end = cp.length;
        boolean startAnchored = end > 0 && cp[0] == '^';
        if (startAnchored) {
            pos = 1;
        }
        boolean endAnchored = end > pos && cp[end - 1] == '$' && !escaped(end - 1);
        if (endAnchored) {
            end--;
        }
        List<String> alternatives = alternatives();
        if (pos != end) {
            throw refuse(cp[pos] == ')' ? "an unmatched ')'" : "'" + Character.toString(cp[pos])
                    + "' where it cannot be");
        }
        if (alternatives.size() > 1 && (startAnchored || endAnchored)) {
            throw refuse("anchors beside a top-level | (they bind to one alternative each: put the alternatives in a "
                    + "group)");
        }
        List<String> parts = new ArrayList<>();
        if (!startAnchored) {
            parts.add(anyChar + "*");
        }
        String body = alternatives.size() == 1 ? alternatives.getFirst() : "(" + String.join(" | ", alternatives)
                + ")";
        if (!body.isEmpty()) {
            parts.add(body);
        }
        if (!endAnchored) {
            parts.add(anyChar + "*");
        }
        return String.join(" ", parts);
    }

    private boolean escaped(int index) {
        int backslashes = 0;
        for (int i = index - 1; i >= 0 && cp[i] == '\\'; i--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    /** Alternatives separated by {@code |}, each a sequence (possibly empty). */
    private List<String> alternatives() {
        List<String> out = new ArrayList<>();
        out.add(sequence());
        while (pos < end && cp[pos] == '|') {
            pos++;
            out.add(sequence());
        }
        return out;
    }

    private String sequence() {
        List<String> items = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        while (pos < end && cp[pos] != '|' && cp[pos] != ')') {
            Atom atom = atom();
            Quantifier q = quantifier();
            if (atom.literal != null && q == null) {
                literal.append(atom.literal);
                continue;
            }
            flush(literal, items);
            String item = atom.literal != null ? GbnfText.literal(atom.literal) : atom.grammar;
            if (!item.isEmpty()) {
                items.add(q == null ? item : GbnfText.repeat(GbnfText.item(item), q.min, q.max));
            }
        }
        flush(literal, items);
        return String.join(" ", items.stream().filter(s -> !s.isEmpty()).toList());
    }

    private static void flush(StringBuilder literal, List<String> items) {
        if (!literal.isEmpty()) {
            items.add(GbnfText.literal(literal.toString()));
            literal.setLength(0);
        }
    }

    /** A literal's JSON spelling, or a grammar. */
    private record Atom(String literal, String grammar) {
    }

    private record Quantifier(int min, int max) {
    }

    private Atom atom() {
        int c = cp[pos];
        switch (c) {
            case '(' -> {
                pos++;
                if (pos < end && cp[pos] == '?') {
                    groupPrefix();
                }
                List<String> inner = alternatives();
                if (pos >= end || cp[pos] != ')') {
                    throw refuse("an unclosed group");
                }
                pos++;
                if (inner.size() == 1) {
                    String only = inner.getFirst();
                    return new Atom(null, only.isEmpty() ? "" : only.contains(" ") ? "(" + only + ")" : only);
                }
                return new Atom(null, "(" + String.join(" | ", inner) + ")");
            }
            case '[' -> {
                pos++;
                return set(charClass());
            }
            case '.' -> {
                pos++;
                return set(DOT);
            }
            case '\\' -> {
                pos++;
                return set(escape());
            }
            case '^', '$' -> throw refuse("'" + (char) c + "' inside the pattern (only at its ends)");
            case '*', '+', '?' -> throw refuse("a quantifier with nothing before it");
            case '{' -> throw refuse("'{' that is not a quantifier");
            default -> {
                pos++;
                return set(CharSet.single(c));
            }
        }
    }

    private void groupPrefix() {
        pos++;
        if (pos < end && cp[pos] == ':') {
            pos++;
            return;
        }
        if (pos + 1 < end && cp[pos] == '<' && cp[pos + 1] != '=' && cp[pos + 1] != '!') {
            while (pos < end && cp[pos] != '>') {
                if (!Character.isLetterOrDigit(cp[pos]) && cp[pos] != '<') {
                    throw refuse("a group name that is not letters and digits");
                }
                pos++;
            }
            pos++;
            return;
        }
        throw refuse("lookaround or inline flags ((?=, (?!, (?<=, (?<!, (?i)...)");
    }

    private Quantifier quantifier() {
        if (pos >= end) {
            return null;
        }
        Quantifier q;
        int c = cp[pos];
        if (c == '*') {
            q = new Quantifier(0, -1);
            pos++;
        } else if (c == '+') {
            q = new Quantifier(1, -1);
            pos++;
        } else if (c == '?') {
            q = new Quantifier(0, 1);
            pos++;
        } else if (c == '{') {
            pos++;
            int min = count();
            int max = min;
            if (pos < end && cp[pos] == ',') {
                pos++;
                max = pos < end && cp[pos] == '}' ? -1 : count();
            }
            if (pos >= end || cp[pos] != '}') {
                throw refuse("'{' that is not a quantifier");
            }
            pos++;
            if (max != -1 && max < min) {
                throw refuse("a quantifier {" + min + "," + max + "} whose maximum is below its minimum");
            }
            q = new Quantifier(min, max);
        } else {
            return null;
        }
        if (pos < end && cp[pos] == '?') {
            pos++; // lazy: matches the same strings
        } else if (pos < end && cp[pos] == '+') {
            throw refuse("a possessive quantifier (java.util.regex only)");
        }
        if (pos < end && (cp[pos] == '*' || cp[pos] == '+' || cp[pos] == '?' || cp[pos] == '{')) {
            throw refuse("two quantifiers in a row");
        }
        return q;
    }

    private int count() {
        int start = pos;
        while (pos < end && cp[pos] >= '0' && cp[pos] <= '9') {
            pos++;
        }
        if (start == pos) {
            throw refuse("'{' that is not a quantifier");
        }
        String digits = new String(cp, start, pos - start);
        if (digits.length() > 4 || Integer.parseInt(digits) > MAX_COUNT) {
            throw refuse("a repetition count above " + MAX_COUNT);
        }
        return Integer.parseInt(digits);
    }

    private CharSet charClass() {
        boolean negated = pos < end && cp[pos] == '^';
        if (negated) {
            pos++;
        }
        if (pos < end && cp[pos] == ']') {
            throw refuse("[] or [^] (read differently by ECMA-262 and java.util.regex)");
        }
        CharSet set = CharSet.empty();
        while (true) {
            if (pos >= end) {
                throw refuse("an unclosed character class");
            }
            int c = cp[pos];
            if (c == ']') {
                pos++;
                break;
            }
            if (c == '[' || (c == '&' && pos + 1 < end && cp[pos + 1] == '&')) {
                throw refuse("a nested class or && in a class (java.util.regex only)");
            }
            CharSet item = classAtom();
            if (pos + 1 < end && cp[pos] == '-' && cp[pos + 1] != ']') {
                pos++;
                CharSet high = classAtom();
                if (item.size() != 1 || high.size() != 1) {
                    throw refuse("a range between classes such as \\d");
                }
                int from = item.ranges().getFirst()[0];
                int to = high.ranges().getFirst()[0];
                if (to < from) {
                    throw refuse("a range whose end is below its start");
                }
                item = CharSet.of(from, to);
            }
            set = set.union(item);
        }
        return negated ? set.complement() : set;
    }

    private CharSet classAtom() {
        int c = cp[pos++];
        if (c > 0xFFFF) {
            throw refuse("a character beyond U+FFFF in a class (one character to java.util.regex, two to ECMA-262)");
        }
        if (c != '\\') {
            return CharSet.single(c);
        }
        if (pos >= end) {
            throw refuse("a pattern that ends in a backslash");
        }
        if (cp[pos] == 'b') {
            throw refuse("\\b in a class (backspace in ECMA-262, an error in java.util.regex)");
        }
        if (cp[pos] > 0xFFFF) {
            throw refuse("a character beyond U+FFFF in a class (one character to java.util.regex, two to ECMA-262)");
        }
        return escape();
    }

    /** After a backslash: a class escape, a character escape or an escaped punctuation character. */
    private CharSet escape() {
        if (pos >= end) {
            throw refuse("a pattern that ends in a backslash");
        }
        int c = cp[pos++];
        return switch (c) {
            case 'd' -> DIGIT;
            case 'D' -> DIGIT.complement();
            case 'w' -> WORD;
            case 'W' -> WORD.complement();
            case 's' -> SPACE;
            case 'S' -> SPACE.complement();
            case 't' -> CharSet.single('\t');
            case 'n' -> CharSet.single('\n');
            case 'r' -> CharSet.single('\r');
            case 'f' -> CharSet.single('\f');
            case 'v' -> CharSet.single(0x0B);
            case 'x' -> CharSet.single(hex(2));
            case 'u' -> CharSet.single(hex(4));
            default -> {
                if (c < 128 && !Character.isLetterOrDigit(c)) {
                    yield CharSet.single(c);
                }
                pos--;
                throw refuse("\\" + Character.toString(c) + " (backreferences, word boundaries, Unicode "
                        + "properties and dialect-specific escapes are not translated)");
            }
        };
    }

    private int hex(int digits) {
        if (pos + digits > end) {
            throw refuse("an incomplete hexadecimal escape");
        }
        int value = 0;
        for (int i = 0; i < digits; i++) {
            int d = Character.digit(cp[pos + i], 16);
            if (d < 0) {
                throw refuse("an incomplete hexadecimal escape");
            }
            value = value * 16 + d;
        }
        pos += digits;
        return value;
    }

    /** A set of characters as JSON string content: a single character as a literal, else a grammar. */
    private Atom set(CharSet chars) {
        CharSet one = JsonCharClass.ofString(chars);
        if (one.size() == 1) {
            return new Atom(JsonCharClass.json(one.ranges().getFirst()[0]), null);
        }
        return new Atom(null, JsonCharClass.grammar(one).orElseThrow(() ->
                refuse("a character class that no character of a JSON string is in")));
    }

    private UnsupportedSchemaException refuse(String what) {
        return new UnsupportedSchemaException("pattern", at, "the pattern " + JsonString.quote(pattern)
                + " has " + what);
    }
}
