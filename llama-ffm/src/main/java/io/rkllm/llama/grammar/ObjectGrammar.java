package io.rkllm.llama.grammar;

import io.rkllm.llama.text.JsonString;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Objects: the declared properties in the schema's order, the required ones always, the others free to be left
 * out, then (only where {@code additionalProperties} is {@code true} or a schema) more properties under other
 * names. As in llama.cpp, an object with {@code properties} but no {@code additionalProperties} gets no others:
 * a smaller language than the schema's, so still valid, and what a model is meant to write. An object schema
 * with neither is any object.
 */
final class ObjectGrammar {
    private static final String KEY_CHAR = "[^\"\\\\\\x00-\\x1F\\x7F]";

    private final ValueRules converter;
    private final Rules rules;

    ObjectGrammar(ValueRules converter, Rules rules) {
        this.converter = converter;
        this.rules = rules;
    }

    private record Property(String kv, boolean required) {
    }

    String body(Map<String, Object> s, String at, String hint) {
        refuse(s, at);
        Map<String, Object> declared = Schemas.properties(s, "properties", at);
        Set<String> required = Schemas.names(s, "required", at);
        Object additional = s.get("additionalProperties");
        if (!s.containsKey("properties") && required.isEmpty() && (additional == null || Schemas.isTrue(additional))) {
            if (s.containsKey("minProperties") || s.containsKey("maxProperties")) {
                return body(withProperties(s), at, hint); // counted like additional properties
            }
            return rules.shared("object");
        }
        boolean closed = Boolean.FALSE.equals(additional);
        boolean extras = additional != null && !closed;
        for (String name : required) {
            if (!declared.containsKey(name)) {
                if (closed) {
                    throw new UnsatisfiableSchemaException("required", at, "'" + name + "' is required but "
                            + "additionalProperties is false and properties does not name it");
                }
                declared.put(name, additional == null ? true : additional);
            }
        }
        rules.shared("space");
        List<Property> properties = new ArrayList<>();
        for (var entry : declared.entrySet()) {
            String name = entry.getKey();
            boolean isRequired = required.contains(name);
            String propertyHint = (hint.equals("root") ? "" : hint + "-") + name;
            int mark = converter.mark();
            try {
                String value = converter.value(entry.getValue(), at + "/properties" + Schemas.pointer(name),
                        propertyHint);
                String kv = rules.add(propertyHint + "-kv", GbnfText.literal(JsonString.quote(name))
                        + " space \":\" space " + value);
                properties.add(new Property(kv, isRequired));
            } catch (UnsatisfiableSchemaException e) {
                if (isRequired) {
                    throw e;
                }
                converter.rollback(mark); // an optional property no value fits: never written
            }
        }
        int extraMax = counts(s, at, (int) properties.stream().filter(Property::required).count(), extras,
                properties.size());
        String extra = extras && extraMax != 0 ? additionalKv(declared.keySet(), additional, at, hint) : null;
        return "\"{\" space " + members(properties, extra, extraMax) + "\"}\" space";
    }

    private static void refuse(Map<String, Object> s, String at) {
        for (String key : List.of("patternProperties", "dependentRequired", "dependentSchemas", "dependencies")) {
            if (s.get(key) instanceof Map<?, ?> map && !map.isEmpty()) {
                throw new UnsupportedSchemaException(key, at, key + " is not translated");
            }
        }
        if (s.containsKey("propertyNames") && !Schemas.isTrue(s.get("propertyNames"))) {
            throw new UnsupportedSchemaException("propertyNames", at, "propertyNames is not translated");
        }
    }

    /** An object schema without properties, with {@code properties: {}} and anything else allowed as additional. */
    private static Map<String, Object> withProperties(Map<String, Object> s) {
        Map<String, Object> out = new LinkedHashMap<>(s);
        out.put("properties", Map.of());
        out.putIfAbsent("additionalProperties", true);
        return out;
    }

    /**
     * {@code minProperties}, where the required properties satisfy it, and {@code maxProperties}, where the declared
     * properties fit in it: then it bounds the additional ones to what is left (-1: unbounded).
     */
    private static int counts(Map<String, Object> s, String at, int always, boolean extras, int declared) {
        int min = Schemas.count(s, "minProperties", 0, at);
        int max = Schemas.count(s, "maxProperties", -1, at);
        if (min > always) {
            throw new UnsupportedSchemaException("minProperties", at, "minProperties above the number of required "
                    + "properties is not translated");
        }
        if (max != -1 && declared > max) {
            throw new UnsupportedSchemaException("maxProperties", at, "maxProperties below the number of declared "
                    + "properties is not translated");
        }
        return !extras ? 0 : max == -1 ? -1 : max - declared;
    }

    /**
     * The properties between the braces: each optional one may be left out, commas only between those written.
     * Before the first written one there is no comma, so the choices are: which one comes first (any optional
     * one up to the first required one), then the rest, each with its comma.
     */
    private static String members(List<Property> properties, String extra, int extraMax) {
        List<String> firsts = new ArrayList<>();
        boolean anyRequired = false;
        for (int i = 0; i < properties.size(); i++) {
            firsts.add(properties.get(i).kv + after(properties, i + 1, extra, extraMax));
            if (properties.get(i).required) {
                anyRequired = true;
                break;
            }
        }
        if (!anyRequired && extra != null) {
            String more = GbnfText.repeat("(\",\" space " + extra + ")", 0, extraMax == -1 ? -1 : extraMax - 1);
            firsts.add(more.isEmpty() ? extra : extra + " " + more);
        }
        if (firsts.isEmpty()) {
            return "";
        }
        String choice = firsts.size() == 1 ? firsts.getFirst() : "(" + String.join(" | ", firsts) + ")";
        if (!anyRequired) {
            choice = GbnfText.item(choice) + "?";
        }
        return choice + " ";
    }

    private static String after(List<Property> properties, int from, String extra, int extraMax) {
        StringBuilder out = new StringBuilder();
        for (Property p : properties.subList(from, properties.size())) {
            out.append(p.required ? " \",\" space " + p.kv : " (\",\" space " + p.kv + ")?");
        }
        if (extra != null) {
            out.append(' ').append(GbnfText.repeat("(\",\" space " + extra + ")", 0, extraMax));
        }
        return out.toString();
    }

    /** A property under a name not declared (so never a second value for a declared one), with its value. */
    private String additionalKv(Set<String> names, Object additional, String at, String hint) {
        String keyChar = rules.add("key-char", KEY_CHAR);
        String name = (hint.equals("root") ? "" : hint + "-") + "additional";
        String key = rules.add(name + "-key", "\"\\\"\" " + KeyTrie.excluding(names, keyChar) + " \"\\\"\" space");
        String value = Schemas.isTrue(additional) ? rules.shared("value")
                : converter.value(additional, at + "/additionalProperties", name);
        return rules.add(name + "-kv", key + " \":\" space " + value);
    }

    /**
     * The names of JSON strings written without escapes, other than a given set: a trie of the set, where each
     * node lets the name end (unless a name of the set ends there), go on with a character no name of the set
     * continues with (and then anything), or follow the trie.
     */
    static final class KeyTrie {
        private final Map<Integer, KeyTrie> children = new TreeMap<>();
        private boolean end;

        static String excluding(Set<String> names, String keyChar) {
            KeyTrie root = new KeyTrie();
            for (String name : names) {
                if (name.codePoints().allMatch(c -> c >= 0x20 && c != '"' && c != '\\' && c != 0x7F)) {
                    KeyTrie node = root;
                    for (int c : name.codePoints().toArray()) {
                        node = node.children.computeIfAbsent(c, k -> new KeyTrie());
                    }
                    node.end = true;
                }
            }
            return root.grammar(keyChar);
        }

        private String grammar(String keyChar) {
            if (children.isEmpty()) {
                return end ? keyChar + "+" : keyChar + "*";
            }
            List<String> choices = new ArrayList<>();
            if (!end) {
                choices.add("");
            }
            List<int[]> taken = new ArrayList<>();
            for (int c : children.keySet()) {
                taken.add(new int[] {c, c});
            }
            List<int[]> excluded = new ArrayList<>(taken);
            excluded.add(new int[] {'"', '"'});
            excluded.add(new int[] {'\\', '\\'});
            excluded.add(new int[] {0, 0x1F});
            excluded.add(new int[] {0x7F, 0x7F});
            excluded.sort((a, b) -> Integer.compare(a[0], b[0]));
            choices.add(GbnfText.charClass(excluded, true) + " " + keyChar + "*");
            Map<Integer, KeyTrie> ordered = new LinkedHashMap<>(children);
            ordered.forEach((c, child) -> choices.add(GbnfText.literal(Character.toString(c)) + " "
                    + GbnfText.item(child.grammar(keyChar))));
            return "(" + String.join(" | ", choices) + ")";
        }
    }
}
