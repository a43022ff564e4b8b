package io.rkllm.llama.grammar;

import io.rkllm.llama.text.JsonString;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JSON values as plain Java objects (what Jackson's {@code ObjectMapper.readValue(text, Object.class)} or
 * {@code convertValue(node, Object.class)} makes): {@code Map} with string keys, {@code List}, {@code String},
 * {@code Number}, {@code Boolean} and {@code null}. Their JSON text, their JSON type, and JSON equality (numbers
 * by value, so 1 equals 1.0).
 */
final class JsonValues {
    private JsonValues() {
    }

    /** The compact JSON text of {@code value}. */
    static String write(Object value, String location) {
        StringBuilder out = new StringBuilder();
        write(value, out, location);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out, String location) {
        switch (value) {
            case null -> out.append("null");
            case Boolean b -> out.append(b);
            case String s -> JsonString.quote(s, false, out);
            case Number n -> out.append(number(n, location).toString());
            case Map<?, ?> map -> {
                out.append('{');
                boolean first = true;
                for (var entry : map.entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    JsonString.quote(String.valueOf(entry.getKey()), false, out);
                    out.append(':');
                    write(entry.getValue(), out, location);
                }
                out.append('}');
            }
            case List<?> list -> {
                out.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    write(list.get(i), out, location);
                }
                out.append(']');
            }
            default -> throw new UnsupportedSchemaException("const", location, "a " + value.getClass().getName()
                    + " is not a JSON value");
        }
    }

    /** A JSON number as a BigDecimal; NaN and infinities are not JSON. */
    static BigDecimal number(Number n, String location) {
        return switch (n) {
            case BigDecimal d -> d;
            case BigInteger i -> new BigDecimal(i);
            case Integer i -> BigDecimal.valueOf(i);
            case Long l -> BigDecimal.valueOf(l);
            case Short s -> BigDecimal.valueOf(s);
            case Byte b -> BigDecimal.valueOf(b);
            default -> {
                double d = n.doubleValue();
                if (Double.isNaN(d) || Double.isInfinite(d)) {
                    throw new UnsupportedSchemaException("const", location, n + " is not a JSON number");
                }
                yield new BigDecimal(n.toString());
            }
        };
    }

    /** The JSON Schema type of {@code value}: null, boolean, integer, number, string, array or object. */
    static String type(Object value) {
        return switch (value) {
            case null -> "null";
            case Boolean b -> "boolean";
            case String s -> "string";
            case Number n -> isIntegral(n) ? "integer" : "number";
            case Map<?, ?> m -> "object";
            case List<?> l -> "array";
            default -> "unknown";
        };
    }

    private static boolean isIntegral(Number n) {
        try {
            BigDecimal d = number(n, "");
            return d.signum() == 0 || d.stripTrailingZeros().scale() <= 0;
        } catch (UnsupportedSchemaException e) {
            return false;
        }
    }

    /** JSON equality: numbers by value, objects regardless of key order. */
    static boolean equal(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return number(x, "").compareTo(number(y, "")) == 0;
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (var entry : x.entrySet()) {
                if (!y.containsKey(entry.getKey()) || !equal(entry.getValue(), y.get(entry.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            Iterator<?> i = x.iterator();
            Iterator<?> j = y.iterator();
            while (i.hasNext()) {
                if (!equal(i.next(), j.next())) {
                    return false;
                }
            }
            return true;
        }
        return a == null ? b == null : a.equals(b);
    }

    static boolean contains(List<?> values, Object value) {
        return values.stream().anyMatch(v -> equal(v, value));
    }
}
