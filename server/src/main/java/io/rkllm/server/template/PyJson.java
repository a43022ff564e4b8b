package io.rkllm.server.template;

import io.rkllm.llama.text.JsonString;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * JSON as Python's {@code json.dumps} writes it, which is what Hugging Face's {@code tojson} gives a chat template
 * (items separated by {@code ", "}, keys by {@code ": "}, non-ASCII kept, floats as Python's repr writes them, and
 * the filter's {@code indent}, {@code separators}, {@code sort_keys} and {@code ensure_ascii}): the prompt then
 * reads as the model was trained with. Text that is not valid JSON (a tool call's arguments the model wrote wrong,
 * {@link Raw}) is written as it is.
 */
final class PyJson {
    private PyJson() {
    }

    /** JSON text kept as it is: a tool call's arguments that do not read as a JSON object. */
    record Raw(String json) {
        @Override
        public String toString() {
            return json;
        }
    }

    /**
     * json.dumps's options.
     *
     * @param indent null for one line; else the indent string of each level (Python's indent=4 is four spaces)
     */
    record Options(String indent, String itemSeparator, String keySeparator, boolean sortKeys, boolean ensureAscii) {
        static final Options DEFAULT = new Options(null, ", ", ": ", false, false);
    }

    static String write(Object value) {
        return write(value, Options.DEFAULT);
    }

    static String write(Object value, Options options) {
        StringBuilder out = new StringBuilder();
        write(value, options, 0, out);
        return out.toString();
    }

    private static void write(Object value, Options o, int level, StringBuilder out) {
        switch (value) {
            case null -> out.append("null");
            case Raw raw -> out.append(raw.json());
            case String s -> JsonString.quote(s, o.ensureAscii(), out);
            case Boolean b -> out.append(b ? "true" : "false");
            case Double d -> out.append(pythonFloat(d));
            case Float f -> out.append(pythonFloat(f.doubleValue()));
            case Number n -> out.append(n);
            case Map<?, ?> map -> {
                List<Map.Entry<?, ?>> entries = new ArrayList<>(map.entrySet());
                if (o.sortKeys()) {
                    entries.sort((a, b) -> String.valueOf(a.getKey()).compareTo(String.valueOf(b.getKey())));
                }
                container('{', '}', entries, o, level, out, (e, sb) -> {
                    JsonString.quote(String.valueOf(e.getKey()), o.ensureAscii(), sb);
                    sb.append(o.keySeparator());
                    write(e.getValue(), o, level + 1, sb);
                });
            }
            case Collection<?> list -> container('[', ']', new ArrayList<>(list), o, level, out,
                    (item, sb) -> write(item, o, level + 1, sb));
            case Object[] array -> write(java.util.Arrays.asList(array), o, level, out);
            default -> JsonString.quote(value.toString(), o.ensureAscii(), out);
        }
    }

    private interface Item<T> {
        void write(T item, StringBuilder out);
    }

    /** Python's layout: empty containers stay {@code {}}/{@code []}; with an indent, one item a line. */
    private static <T> void container(char open, char close, List<T> items, Options o, int level, StringBuilder out,
                                      Item<T> writer) {
        out.append(open);
        if (items.isEmpty()) {
            out.append(close);
            return;
        }
        String inner = o.indent() == null ? "" : "\n" + o.indent().repeat(level + 1);
        for (int i = 0; i < items.size(); i++) {
            out.append(i == 0 ? "" : o.itemSeparator()).append(inner);
            writer.write(items.get(i), out);
        }
        out.append(o.indent() == null ? "" : "\n" + o.indent().repeat(level)).append(close);
    }

    /**
     * Python's float repr: the shortest digits that read back (as Java's), but positional from 1e-4 up to 1e16
     * and {@code 1e-07}/{@code 1e+16} beyond, where Java writes {@code 1.0E-7}; infinities and NaN as Python's
     * json writes them.
     */
    static String pythonFloat(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0.0" : "0.0";
        }
        BigDecimal shortest = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        int exponent = shortest.precision() - shortest.scale() - 1;
        if (exponent >= -4 && exponent < 16) {
            String plain = shortest.toPlainString();
            return plain.contains(".") ? plain : plain + ".0";
        }
        String digits = shortest.unscaledValue().abs().toString();
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        String sign = d < 0 ? "-" : "";
        return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "")
                + Math.abs(exponent);
    }
}
