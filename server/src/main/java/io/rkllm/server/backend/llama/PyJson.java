package io.rkllm.server.backend.llama;

import java.util.Collection;
import java.util.Map;

/**
 * JSON as Python's {@code json.dumps} writes it, which is what Hugging Face's {@code tojson} gives a chat template
 * (items separated by {@code ", "}, keys by {@code ": "}, non-ASCII kept): the prompt then reads as the model was
 * trained with. A tool call's arguments arrive as the JSON text the model wrote ({@link Raw}) and are written as they
 * are.
 */
final class PyJson {
    private PyJson() {
    }

    /** JSON text kept as it is: a tool call's arguments, written back as the model wrote them. */
    record Raw(String json) {
        @Override
        public String toString() {
            return json;
        }
    }

    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        switch (value) {
            case null -> out.append("null");
            case Raw raw -> out.append(raw.json());
            case String s -> string(s, out);
            case Boolean b -> out.append(b ? "true" : "false");
            case Double d when d == Math.rint(d) && !d.isInfinite() && Math.abs(d) < 1e15 -> out.append(d);
            case Number n -> out.append(n);
            case Map<?, ?> map -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    out.append(first ? "" : ", ");
                    first = false;
                    string(String.valueOf(e.getKey()), out);
                    out.append(": ");
                    write(e.getValue(), out);
                }
                out.append('}');
            }
            case Collection<?> list -> {
                out.append('[');
                boolean first = true;
                for (Object item : list) {
                    out.append(first ? "" : ", ");
                    first = false;
                    write(item, out);
                }
                out.append(']');
            }
            case Object[] array -> write(java.util.Arrays.asList(array), out);
            default -> string(value.toString(), out);
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
