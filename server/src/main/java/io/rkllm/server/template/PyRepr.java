package io.rkllm.server.template;

import java.util.Collection;
import java.util.Map;

/**
 * Python's {@code str()}, which Jinja's {@code string} filter is: {@code True}, {@code None}, a list as
 * {@code ['a', 'b']}, a dict as {@code {'k': 1}} (Seed-OSS writes non-string tool arguments so); Jinjava's is
 * Java's toString ({@code [a, b]}, {@code true}).
 */
final class PyRepr {
    private PyRepr() {
    }

    static String str(Object value) {
        return value instanceof String s ? s : repr(value);
    }

    static String repr(Object value) {
        StringBuilder out = new StringBuilder();
        repr(value, out);
        return out.toString();
    }

    private static void repr(Object value, StringBuilder out) {
        switch (value) {
            case null -> out.append("None");
            case Boolean b -> out.append(b ? "True" : "False");
            case String s -> string(s, out);
            case Double d -> out.append(PyJson.pythonFloat(d).replace("Infinity", "inf").replace("NaN", "nan"));
            case Float f -> repr(f.doubleValue(), out);
            case Number n -> out.append(n);
            case Map<?, ?> map -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    out.append(first ? "" : ", ");
                    first = false;
                    repr(e.getKey(), out);
                    out.append(": ");
                    repr(e.getValue(), out);
                }
                out.append('}');
            }
            case Collection<?> list -> {
                out.append('[');
                boolean first = true;
                for (Object item : list) {
                    out.append(first ? "" : ", ");
                    first = false;
                    repr(item, out);
                }
                out.append(']');
            }
            case PyJson.Raw raw -> string(raw.json(), out);
            default -> out.append(value);
        }
    }

    /** Python's string repr: single quotes unless the text has one and no double quote. */
    private static void string(String s, StringBuilder out) {
        char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
        out.append(quote);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c == quote) {
                        out.append('\\').append(c);
                    } else if (c < 0x20 || c == 0x7f) {
                        out.append(String.format("\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append(quote);
    }
}
