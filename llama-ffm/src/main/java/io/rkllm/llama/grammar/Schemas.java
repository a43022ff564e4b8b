package io.rkllm.llama.grammar;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reading a schema given as plain Java values: its keywords, checked for the types the specification gives them,
 * and which keywords constrain values at all (the others, such as {@code title} or {@code description}, and
 * keywords nobody defined, constrain nothing: a validator ignores them, and so does the grammar).
 */
final class Schemas {
    static final Set<String> TYPES = Set.of("null", "boolean", "object", "array", "number", "integer", "string");

    static final Set<String> OBJECT_KEYWORDS = Set.of("properties", "required", "additionalProperties",
            "minProperties", "maxProperties", "patternProperties", "propertyNames", "dependentRequired",
            "dependentSchemas", "dependencies", "unevaluatedProperties");
    static final Set<String> ARRAY_KEYWORDS = Set.of("items", "prefixItems", "additionalItems", "minItems",
            "maxItems", "uniqueItems", "contains", "minContains", "maxContains", "unevaluatedItems");
    static final Set<String> STRING_KEYWORDS = Set.of("minLength", "maxLength", "pattern", "format");
    static final Set<String> NUMBER_KEYWORDS = Set.of("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
            "multipleOf");
    static final Set<String> GENERAL_KEYWORDS = Set.of("type", "enum", "const", "allOf", "anyOf", "oneOf", "not",
            "if", "then", "else", "$ref", "$dynamicRef", "$recursiveRef");

    private Schemas() {
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object schema, String at) {
        if (schema instanceof Map<?, ?> map) {
            for (Object key : map.keySet()) {
                if (!(key instanceof String)) {
                    throw new UnsupportedSchemaException("type", at, "a schema's keys must be strings");
                }
            }
            return (Map<String, Object>) map;
        }
        throw new UnsupportedSchemaException("type", at, "a schema must be an object or a boolean, not "
                + JsonValues.type(schema));
    }

    /** Whether {@code keyword} constrains values (as opposed to annotations and unknown words). */
    static boolean constrains(String keyword) {
        return GENERAL_KEYWORDS.contains(keyword) || OBJECT_KEYWORDS.contains(keyword)
                || ARRAY_KEYWORDS.contains(keyword) || STRING_KEYWORDS.contains(keyword)
                || NUMBER_KEYWORDS.contains(keyword);
    }

    /** The keywords of {@code schema} that constrain values, in order, without {@code except}. */
    static Map<String, Object> constraints(Map<String, Object> schema, String... except) {
        Map<String, Object> out = new LinkedHashMap<>();
        schema.forEach((k, v) -> {
            if (constrains(k) && !List.of(except).contains(k)) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** The declared {@code type}, as a set in the declared order; null when there is none. */
    static Set<String> types(Map<String, Object> schema, String at) {
        Object type = schema.get("type");
        if (type == null) {
            return null;
        }
        List<Object> names = type instanceof List<?> list ? new ArrayList<>(list) : List.of(type);
        Set<String> out = new LinkedHashSet<>();
        for (Object name : names) {
            if (!(name instanceof String s) || !TYPES.contains(s)) {
                throw new UnsupportedSchemaException("type", at, "unknown type " + JsonValues.write(name, at));
            }
            out.add(s);
        }
        if (out.isEmpty()) {
            throw new UnsatisfiableSchemaException("type", at, "an empty list of types");
        }
        return out;
    }

    /** The types a schema without {@code type} is about, from its keywords (empty: any value). */
    static Set<String> inferredTypes(Map<String, Object> schema) {
        Set<String> out = new LinkedHashSet<>();
        for (String key : schema.keySet()) {
            if (OBJECT_KEYWORDS.contains(key)) {
                out.add("object");
            } else if (ARRAY_KEYWORDS.contains(key)) {
                out.add("array");
            } else if (STRING_KEYWORDS.contains(key) && (!key.equals("format")
                    || StringFormats.isKnown(schema.get(key)))) {
                out.add("string");
            } else if (NUMBER_KEYWORDS.contains(key)) {
                out.add("number");
            }
        }
        return out;
    }

    /** Whether a value of JSON type {@code valueType} (from {@link JsonValues#type}) has one of {@code types}. */
    static boolean hasType(String valueType, Set<String> types) {
        return types.contains(valueType) || (valueType.equals("integer") && types.contains("number"));
    }

    static String string(Map<String, Object> schema, String key, String at) {
        if (schema.get(key) instanceof String s) {
            return s;
        }
        throw new UnsupportedSchemaException(key, at, key + " must be a string");
    }

    /** A count such as {@code minLength}: a whole number at least 0 ({@code 2.0} is one). */
    static int count(Map<String, Object> schema, String key, int absent, String at) {
        Object value = schema.get(key);
        if (value == null) {
            return absent;
        }
        if (value instanceof Number n) {
            BigDecimal d = JsonValues.number(n, at);
            if (d.signum() >= 0 && JsonValues.type(n).equals("integer")) {
                return d.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0 ? Integer.MAX_VALUE : d.intValue();
            }
        }
        throw new UnsupportedSchemaException(key, at, key + " must be a whole number at least 0");
    }

    static BigDecimal number(Map<String, Object> schema, String key, String at) {
        if (schema.get(key) instanceof Number n) {
            return JsonValues.number(n, at);
        }
        throw new UnsupportedSchemaException(key, at, key + " must be a number");
    }

    static List<Object> list(Map<String, Object> schema, String key, String at) {
        if (schema.get(key) instanceof List<?> list) {
            return new ArrayList<>(list);
        }
        throw new UnsupportedSchemaException(key, at, key + " must be an array");
    }

    static Map<String, Object> properties(Map<String, Object> schema, String key, String at) {
        Object value = schema.get(key);
        if (value == null) {
            return new LinkedHashMap<>();
        }
        return new LinkedHashMap<>(map(value, at + "/" + key));
    }

    /** {@code required}: distinct names, in order. */
    static Set<String> names(Map<String, Object> schema, String key, String at) {
        Set<String> out = new LinkedHashSet<>();
        if (schema.get(key) == null) {
            return out;
        }
        for (Object name : list(schema, key, at)) {
            if (!(name instanceof String s)) {
                throw new UnsupportedSchemaException(key, at, key + " must list strings");
            }
            out.add(s);
        }
        return out;
    }

    /** A JSON Pointer segment: {@code ~} and {@code /} escaped. */
    static String pointer(String segment) {
        return "/" + segment.replace("~", "~0").replace("/", "~1");
    }

    /** Whether a sub-schema ({@code additionalProperties}, {@code items}...) lets anything through. */
    static boolean isTrue(Object schema) {
        return Boolean.TRUE.equals(schema) || (schema instanceof Map<?, ?> m && m.keySet().stream()
                .noneMatch(k -> k instanceof String s && constrains(s)));
    }
}
