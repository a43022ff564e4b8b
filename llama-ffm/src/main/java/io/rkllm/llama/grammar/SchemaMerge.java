package io.rkllm.llama.grammar;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code allOf} (and a {@code $ref} with other keywords beside it) as one schema that every part accepts: types
 * intersected, {@code enum}/{@code const} intersected, the tighter of each bound, {@code required} united,
 * properties collected in order with all their schemas (where a part's {@code additionalProperties} applies to a
 * property it does not declare, it is added, or forbids the property), {@code prefixItems}/{@code items} position
 * by position. An {@code anyOf} or {@code oneOf} in a part is distributed: one alternative per branch, each merged
 * with the other parts, those no value satisfies dropped. Two different {@code pattern}s or {@code format}s, or two
 * of a keyword that is refused anyway, cannot be merged.
 */
final class SchemaMerge {
    private static final int MAX_DEPTH = 32;
    private static final int MAX_ALTERNATIVES = 64;
    private static final Set<String> LOWER = Set.of("minLength", "minItems", "minProperties", "minContains",
            "minimum", "exclusiveMinimum");
    private static final Set<String> UPPER = Set.of("maxLength", "maxItems", "maxProperties", "maxContains",
            "maximum", "exclusiveMaximum");
    private static final Set<String> MUST_AGREE = Set.of("pattern", "format", "multipleOf", "contains",
            "propertyNames", "patternProperties", "dependentRequired", "dependentSchemas", "dependencies", "not",
            "if", "then", "else", "$dynamicRef", "$recursiveRef");

    private final SchemaRefs refs;
    private final String at;

    private SchemaMerge(SchemaRefs refs, String at) {
        this.refs = refs;
        this.at = at;
    }

    /** One schema that holds exactly where every one of {@code parts} holds (as far as grammars go). */
    static Map<String, Object> merge(List<Object> parts, String at, SchemaRefs refs) {
        return new SchemaMerge(refs, at).merge(parts, 0);
    }

    private Map<String, Object> merge(List<Object> parts, int depth) {
        List<Map<String, Object>> flat = new ArrayList<>();
        for (Object part : parts) {
            expand(part, flat, depth);
        }
        return combine(flat, depth);
    }

    /** A part's own keywords, and those of what its {@code $ref} and {@code allOf} lead to, as separate parts. */
    private void expand(Object part, List<Map<String, Object>> out, int depth) {
        if (depth > MAX_DEPTH) {
            throw new UnsupportedSchemaException("$ref", at, "allOf and $ref nest too deeply (a schema that "
                    + "includes itself through allOf never ends)");
        }
        if (Boolean.TRUE.equals(part)) {
            return;
        }
        if (Boolean.FALSE.equals(part)) {
            throw new UnsatisfiableSchemaException("allOf", at, "it includes the schema false");
        }
        Map<String, Object> schema = Schemas.map(part, at);
        if (schema.containsKey("$ref")) {
            expand(refs.resolve(Schemas.string(schema, "$ref", at), at), out, depth + 1);
        }
        if (schema.containsKey("allOf")) {
            for (Object inner : Schemas.list(schema, "allOf", at)) {
                expand(inner, out, depth + 1);
            }
        }
        Map<String, Object> own = normalized(Schemas.constraints(schema, "$ref", "allOf"));
        if (!own.isEmpty()) {
            out.add(own);
        }
    }

    /**
     * Draft 4's boolean exclusive bounds in the 2019+ form; {@code unevaluatedProperties} and
     * {@code unevaluatedItems} where {@code additionalProperties} and {@code items} are absent, which is what they
     * mean within one part (what the other parts evaluate does not count for this part).
     */
    static Map<String, Object> normalized(Map<String, Object> schema) {
        Map<String, Object> out = new LinkedHashMap<>(schema);
        for (String[] pair : new String[][] {{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}}) {
            if (out.get(pair[0]) instanceof Boolean exclusive) {
                out.remove(pair[0]);
                if (exclusive && out.containsKey(pair[1])) {
                    out.put(pair[0], out.remove(pair[1]));
                }
            }
        }
        Object unevaluated = out.remove("unevaluatedProperties");
        if (unevaluated != null && !out.containsKey("additionalProperties")) {
            out.put("additionalProperties", unevaluated);
        }
        unevaluated = out.remove("unevaluatedItems");
        if (unevaluated != null) {
            if (out.get("items") instanceof List<?>) {
                out.putIfAbsent("additionalItems", unevaluated);
            } else {
                out.putIfAbsent("items", unevaluated);
            }
        }
        return out;
    }

    private Map<String, Object> combine(List<Map<String, Object>> parts, int depth) {
        for (int i = 0; i < parts.size(); i++) {
            Map<String, Object> part = parts.get(i);
            String key = part.containsKey("anyOf") ? "anyOf" : part.containsKey("oneOf") ? "oneOf" : null;
            if (key != null) {
                return distribute(parts, i, key, depth);
            }
        }
        if (parts.size() == 1) {
            return parts.getFirst();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        types(parts, out);
        literals(parts, out);
        bounds(parts, out);
        agreeing(parts, out);
        objects(parts, out);
        arrays(parts, out);
        if (parts.stream().anyMatch(p -> Boolean.TRUE.equals(p.get("uniqueItems")))) {
            out.put("uniqueItems", true);
        }
        return out;
    }

    private Map<String, Object> distribute(List<Map<String, Object>> parts, int index, String key, int depth) {
        Map<String, Object> part = parts.get(index);
        List<Object> others = new ArrayList<>(parts);
        others.remove(index);
        Map<String, Object> rest = new LinkedHashMap<>(part);
        rest.remove(key);
        if (!rest.isEmpty()) {
            others.add(rest);
        }
        List<Object> merged = new ArrayList<>();
        for (Object branch : Schemas.list(part, key, at)) {
            List<Object> all = new ArrayList<>(others);
            all.add(branch);
            try {
                merged.add(merge(all, depth + 1));
            } catch (UnsatisfiableSchemaException e) {
                // a branch that contradicts the other parts: no value takes it
            }
        }
        if (merged.isEmpty()) {
            throw new UnsatisfiableSchemaException(key, at, "no alternative agrees with the rest of allOf");
        }
        if (key.equals("oneOf")) {
            new OneOfCheck(refs, at).requireDisjoint(merged);
        }
        List<Object> alternatives = new ArrayList<>();
        for (Object branch : merged) {
            if (branch instanceof Map<?, ?> m && m.size() == 1 && m.get("anyOf") instanceof List<?> inner) {
                alternatives.addAll(inner);
            } else {
                alternatives.add(branch);
            }
        }
        if (alternatives.size() > MAX_ALTERNATIVES) {
            throw new UnsupportedSchemaException(key, at, "allOf of anyOf/oneOf makes more than " + MAX_ALTERNATIVES
                    + " alternatives");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("anyOf", alternatives);
        return out;
    }

    private void types(List<Map<String, Object>> parts, Map<String, Object> out) {
        Set<String> types = null;
        for (Map<String, Object> part : parts) {
            Set<String> own = Schemas.types(part, at);
            if (own == null) {
                continue;
            }
            if (types == null) {
                types = own;
                continue;
            }
            Set<String> both = new LinkedHashSet<>();
            for (String type : types) {
                if (own.contains(type) || (type.equals("integer") && own.contains("number"))) {
                    both.add(type);
                } else if (type.equals("number") && own.contains("integer")) {
                    both.add("integer");
                }
            }
            types = both;
        }
        if (types != null) {
            if (types.isEmpty()) {
                throw new UnsatisfiableSchemaException("type", at, "the parts of allOf have no type in common");
            }
            out.put("type", new ArrayList<>(types));
        }
    }

    private void literals(List<Map<String, Object>> parts, Map<String, Object> out) {
        List<Object> values = null;
        for (Map<String, Object> part : parts) {
            List<Object> own = null;
            if (part.containsKey("enum")) {
                own = Schemas.list(part, "enum", at);
            }
            if (part.containsKey("const")) {
                List<Object> constant = new ArrayList<>();
                constant.add(part.get("const"));
                own = own == null ? constant : intersect(own, constant);
            }
            if (own != null) {
                values = values == null ? own : intersect(values, own);
            }
        }
        if (values != null) {
            if (values.isEmpty()) {
                throw new UnsatisfiableSchemaException("enum", at, "the parts of allOf allow no common value");
            }
            out.put("enum", values);
        }
    }

    private static List<Object> intersect(List<Object> a, List<Object> b) {
        List<Object> out = new ArrayList<>();
        for (Object value : a) {
            if (JsonValues.contains(b, value) && !JsonValues.contains(out, value)) {
                out.add(value);
            }
        }
        return out;
    }

    private void bounds(List<Map<String, Object>> parts, Map<String, Object> out) {
        for (Map<String, Object> part : parts) {
            for (String key : part.keySet()) {
                boolean lower = LOWER.contains(key);
                if (!lower && !UPPER.contains(key)) {
                    continue;
                }
                BigDecimal value = Schemas.number(part, key, at);
                Object current = out.get(key);
                if (current == null || (value.compareTo(JsonValues.number((Number) current, at)) > 0) == lower) {
                    out.put(key, part.get(key));
                }
            }
        }
    }

    private void agreeing(List<Map<String, Object>> parts, Map<String, Object> out) {
        for (Map<String, Object> part : parts) {
            for (String key : part.keySet()) {
                if (!MUST_AGREE.contains(key)) {
                    continue;
                }
                if (out.containsKey(key) && !JsonValues.equal(out.get(key), part.get(key))) {
                    throw new UnsupportedSchemaException(key, at, "allOf combines two different " + key + "s");
                }
                out.put(key, part.get(key));
            }
        }
    }

    private void objects(List<Map<String, Object>> parts, Map<String, Object> out) {
        Map<String, List<Object>> properties = new LinkedHashMap<>();
        Set<String> required = new LinkedHashSet<>();
        boolean any = false;
        for (Map<String, Object> part : parts) {
            any |= part.containsKey("properties") || part.containsKey("required")
                    || part.containsKey("additionalProperties");
            Schemas.properties(part, "properties", at).forEach((name, schema) ->
                    properties.computeIfAbsent(name, n -> new ArrayList<>()).add(schema));
            required.addAll(Schemas.names(part, "required", at));
        }
        if (!any) {
            return;
        }
        for (String name : required) {
            properties.computeIfAbsent(name, n -> new ArrayList<>());
        }
        Set<String> forbidden = new LinkedHashSet<>();
        List<Object> additional = new ArrayList<>();
        for (Map<String, Object> part : parts) {
            Object extra = part.get("additionalProperties");
            if (extra == null) {
                continue;
            }
            additional.add(extra);
            if (Schemas.isTrue(extra)) {
                continue;
            }
            Set<String> declared = Schemas.properties(part, "properties", at).keySet();
            for (var entry : properties.entrySet()) {
                if (!declared.contains(entry.getKey())) {
                    if (Boolean.FALSE.equals(extra)) {
                        forbidden.add(entry.getKey());
                    } else {
                        entry.getValue().add(extra);
                    }
                }
            }
        }
        for (String name : forbidden) {
            if (required.contains(name)) {
                throw new UnsatisfiableSchemaException("additionalProperties", at, "one part of allOf requires '"
                        + name + "', another forbids it");
            }
            properties.remove(name);
        }
        Map<String, Object> merged = new LinkedHashMap<>();
        properties.forEach((name, schemas) -> merged.put(name, all(schemas)));
        out.put("properties", merged);
        if (!required.isEmpty()) {
            out.put("required", new ArrayList<>(required));
        }
        if (additional.stream().anyMatch(Boolean.FALSE::equals)) {
            out.put("additionalProperties", false);
        } else if (!additional.isEmpty()) {
            List<Object> constraining = additional.stream().filter(a -> !Schemas.isTrue(a)).toList();
            out.put("additionalProperties", constraining.isEmpty() ? true : all(constraining));
        }
    }

    /** One part's array items: those by position, and the schema of the rest (null: absent). */
    private record Items(List<Object> prefix, Object rest) {
    }

    private Items items(Map<String, Object> part) {
        if (part.containsKey("prefixItems")) {
            return new Items(Schemas.list(part, "prefixItems", at), part.get("items"));
        }
        if (part.get("items") instanceof List<?> tuple) {
            return new Items(new ArrayList<>(tuple), part.get("additionalItems"));
        }
        return new Items(List.of(), part.get("items"));
    }

    private void arrays(List<Map<String, Object>> parts, Map<String, Object> out) {
        List<Items> all = new ArrayList<>();
        for (Map<String, Object> part : parts) {
            if (part.containsKey("items") || part.containsKey("prefixItems")) {
                all.add(items(part));
            }
        }
        if (all.isEmpty()) {
            return;
        }
        int length = all.stream().mapToInt(i -> i.prefix.size()).max().orElse(0);
        int limit = all.stream().filter(i -> Boolean.FALSE.equals(i.rest)).mapToInt(i -> i.prefix.size()).min()
                .orElse(Integer.MAX_VALUE);
        List<Object> prefix = new ArrayList<>();
        for (int k = 0; k < Math.min(length, limit); k++) {
            List<Object> schemas = new ArrayList<>();
            for (Items items : all) {
                if (k < items.prefix.size()) {
                    schemas.add(items.prefix.get(k));
                } else if (items.rest != null) {
                    schemas.add(items.rest);
                }
            }
            prefix.add(all(schemas));
        }
        if (!prefix.isEmpty()) {
            out.put("prefixItems", prefix);
        }
        if (limit != Integer.MAX_VALUE) {
            out.put("items", false);
        } else {
            List<Object> rests = all.stream().map(Items::rest).filter(r -> r != null).toList();
            if (!rests.isEmpty()) {
                out.put("items", all(rests));
            }
        }
    }

    /** A schema for all of {@code schemas}: true for none, the one, or their allOf. */
    private static Object all(List<Object> schemas) {
        if (schemas.isEmpty()) {
            return true;
        }
        if (schemas.size() == 1) {
            return schemas.getFirst();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("allOf", new ArrayList<>(schemas));
        return out;
    }
}
