package io.rkllm.llama.grammar;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules of a grammar being built: named after the schema's words, one rule for equal bodies, the shared
 * JSON rules added when first used, and a rule reserved before its body is known (a {@code $ref} that reaches
 * itself).
 */
final class Rules {

    /**
     * A character of a JSON string as written: anything but the quote, the backslash and control characters, or an
     * escape. {@code \\u} escapes of UTF-16 surrogates are left out: a lone one is not a character, a pair is two
     * escapes for one character (which would break maxLength and minLength).
     */
    static final String CHAR = "[^\"\\\\\\x00-\\x1F\\x7F] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" "
            + "([0-9a-cA-CefEF] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2}))";

    private static final String INTEGRAL = "(\"0\" | [1-9] [0-9]{0,15})";

    private static final Map<String, String> SHARED = Map.ofEntries(
            Map.entry("char", CHAR),
            Map.entry("string", "\"\\\"\" char* \"\\\"\" space"),
            Map.entry("boolean", "(\"true\" | \"false\") space"),
            Map.entry("null", "\"null\" space"),
            Map.entry("integer", "\"-\"? " + INTEGRAL + " space"),
            Map.entry("number", "\"-\"? " + INTEGRAL + " (\".\" [0-9]{1,16})? ([eE] [-+]? [0-9]{1,2})? space"),
            Map.entry("value", "object | array | string | number | boolean | null"),
            Map.entry("object", "\"{\" space (string \":\" space value (\",\" space string \":\" space value)*)? "
                    + "\"}\" space"),
            Map.entry("array", "\"[\" space (value (\",\" space value)*)? \"]\" space"));

    private static final Map<String, List<String>> USES = Map.of(
            "string", List.of("char", "space"),
            "boolean", List.of("space"),
            "null", List.of("space"),
            "integer", List.of("space"),
            "number", List.of("space"),
            "value", List.of("object", "array", "string", "number", "boolean", "null"),
            "object", List.of("space", "string", "value"),
            "array", List.of("space", "value"));

    private final Map<String, String> rules = new LinkedHashMap<>();
    private final Map<String, String> byBody = new HashMap<>();
    private final JsonWhitespace whitespace;

    Rules(JsonWhitespace whitespace) {
        this.whitespace = whitespace;
        rules.put("root", null);
    }

    /** A rule with {@code body}: an existing one with the same body, or a new one named after {@code hint}. */
    String add(String hint, String body) {
        String existing = byBody.get(body);
        if (existing != null) {
            return existing;
        }
        String name = reserve(hint);
        define(name, body);
        return name;
    }

    /** A free name for a rule whose body comes later ({@link #define}). */
    String reserve(String hint) {
        String base = GbnfText.ruleName(hint);
        String name = base;
        for (int i = 1; rules.containsKey(name) || SHARED.containsKey(name); i++) {
            name = base + "-" + i;
        }
        rules.put(name, null);
        return name;
    }

    void define(String name, String body) {
        rules.put(name, body);
        byBody.putIfAbsent(body, name);
    }

    /** One of the shared JSON rules ({@code string}, {@code value}, {@code space}...), added with those it uses. */
    String shared(String name) {
        String body = name.equals("space") ? whitespace.rule() : SHARED.get(name);
        if (body == null) {
            throw new IllegalArgumentException(name);
        }
        if (!rules.containsKey(name)) {
            rules.put(name, body);
            for (String used : USES.getOrDefault(name, List.of())) {
                shared(used);
            }
        }
        return name;
    }

    /** The grammar text, {@code root} first. */
    String render() {
        StringBuilder out = new StringBuilder();
        rules.forEach((name, body) -> {
            if (body == null) {
                throw new IllegalStateException("rule " + name + " has no body");
            }
            out.append(name).append(" ::= ").append(body).append('\n');
        });
        return out.toString();
    }

    /** A point to {@link #rollback} to: the rules added after it are forgotten (a branch that came to nothing). */
    int mark() {
        return rules.size();
    }

    void rollback(int mark) {
        List<String> names = List.copyOf(rules.keySet());
        for (String name : names.subList(mark, names.size())) {
            rules.remove(name);
        }
        byBody.values().retainAll(rules.keySet());
    }

    boolean has(String name) {
        return rules.containsKey(name);
    }

    int size() {
        return rules.values().stream().mapToInt(b -> b == null ? 0 : b.length()).sum();
    }
}
