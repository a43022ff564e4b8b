package io.rkllm.llama.grammar;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code oneOf} wants exactly one branch to match, which a grammar (a union) cannot count. It is taken as
 * {@code anyOf} only when no value the grammar makes from one branch can match another: the branches have no
 * JSON type in common, or their {@code const}/{@code enum} values differ, or, for objects, one branch requires a
 * property another never writes, or a property both write has different {@code const}/{@code enum} values in
 * each (a discriminator). Anything else is refused: the answer could match two branches.
 */
final class OneOfCheck {
    private static final int MAX_DEPTH = 16;
    private static final Set<String> ALL = Set.of("null", "boolean", "object", "array", "number", "string");

    private final SchemaRefs refs;
    private final String at;

    OneOfCheck(SchemaRefs refs, String at) {
        this.refs = refs;
        this.at = at;
    }

    void requireDisjoint(List<Object> branches) {
        for (int i = 0; i < branches.size(); i++) {
            for (int j = 0; j < branches.size(); j++) {
                if (i != j && !excludes(branches.get(i), branches.get(j), 0)) {
                    throw new UnsupportedSchemaException("oneOf", at, "alternatives " + i + " and " + j
                            + " may both match one value (distinct types, const/enum values or required "
                            + "properties make them exclusive; anyOf does not need that)");
                }
            }
        }
    }

    /** Whether every value the grammar makes from {@code made} fails {@code other}. */
    private boolean excludes(Object madeSchema, Object otherSchema, int depth) {
        if (depth > MAX_DEPTH) {
            return false;
        }
        Object made = resolve(madeSchema, depth);
        Object other = resolve(otherSchema, depth);
        if (Boolean.FALSE.equals(made) || Boolean.FALSE.equals(other)) {
            return true;
        }
        if (!(made instanceof Map<?, ?>) || !(other instanceof Map<?, ?>)) {
            return false;
        }
        Map<String, Object> m = Schemas.map(made, at);
        Map<String, Object> o = Schemas.map(other, at);
        if (m.get("anyOf") instanceof List<?> branches) {
            return branches.stream().allMatch(b -> excludes(b, other, depth + 1));
        }
        if (o.get("anyOf") instanceof List<?> branches) {
            return branches.stream().allMatch(b -> excludes(made, b, depth + 1));
        }
        if (m.containsKey("allOf") || m.containsKey("oneOf") || o.containsKey("allOf") || o.containsKey("oneOf")) {
            return false;
        }
        if (disjoint(produced(m), accepted(o))) {
            return true;
        }
        List<Object> madeValues = literals(m);
        List<Object> otherValues = literals(o);
        if (madeValues != null && otherValues != null
                && madeValues.stream().noneMatch(v -> JsonValues.contains(otherValues, v))) {
            return true;
        }
        return produced(m).equals(Set.of("object")) && objectsExclude(m, o);
    }

    private boolean objectsExclude(Map<String, Object> made, Map<String, Object> other) {
        Map<String, Object> madeProperties = Schemas.properties(made, "properties", at);
        Set<String> madeRequired = Schemas.names(made, "required", at);
        Object additional = made.get("additionalProperties");
        boolean anyKey = additional != null && !Boolean.FALSE.equals(additional)
                || (!made.containsKey("properties") && additional == null && madeRequired.isEmpty());
        Map<String, Object> otherProperties = Schemas.properties(other, "properties", at);
        for (String name : Schemas.names(other, "required", at)) {
            if (!anyKey && !madeProperties.containsKey(name) && !madeRequired.contains(name)) {
                return true;
            }
        }
        for (String name : madeRequired) {
            List<Object> mine = madeProperties.containsKey(name) ? literals(madeProperties.get(name)) : null;
            List<Object> theirs = otherProperties.containsKey(name) ? literals(otherProperties.get(name)) : null;
            if (mine != null && theirs != null && mine.stream().noneMatch(v -> JsonValues.contains(theirs, v))) {
                return true;
            }
        }
        return false;
    }

    private Object resolve(Object schema, int depth) {
        for (int i = depth; i < MAX_DEPTH && schema instanceof Map<?, ?> map && map.get("$ref") instanceof String ref
                && map.keySet().stream().allMatch(k -> k.equals("$ref") || !Schemas.constrains((String) k)); i++) {
            schema = refs.resolve(ref, at);
        }
        return schema;
    }

    /** The {@code const} or {@code enum} values of a schema, or null if it has neither. */
    private List<Object> literals(Object schema) {
        schema = resolve(schema, 0);
        if (!(schema instanceof Map<?, ?>)) {
            return null;
        }
        Map<String, Object> s = Schemas.map(schema, at);
        if (s.containsKey("const")) {
            List<Object> one = new ArrayList<>();
            one.add(s.get("const"));
            return one;
        }
        return s.containsKey("enum") ? Schemas.list(s, "enum", at) : null;
    }

    /** The types the grammar writes for a schema: its type, its values' types, or what its keywords are about. */
    private Set<String> produced(Map<String, Object> schema) {
        List<Object> values = literals(schema);
        if (values != null) {
            return typesOf(values);
        }
        Set<String> declared = Schemas.types(schema, at);
        if (declared != null) {
            return declared;
        }
        Set<String> inferred = Schemas.inferredTypes(schema);
        return inferred.isEmpty() ? ALL : inferred;
    }

    /** The types a validator lets through a schema: its type, or its values' types; all without either. */
    private Set<String> accepted(Map<String, Object> schema) {
        List<Object> values = literals(schema);
        if (values != null) {
            return typesOf(values);
        }
        Set<String> declared = Schemas.types(schema, at);
        return declared == null ? ALL : declared;
    }

    private static Set<String> typesOf(List<Object> values) {
        Set<String> out = new LinkedHashSet<>();
        for (Object value : values) {
            out.add(JsonValues.type(value));
        }
        return out;
    }

    private static boolean disjoint(Set<String> produced, Set<String> accepted) {
        for (String type : produced) {
            if (Schemas.hasType(type, accepted) || (type.equals("number") && accepted.contains("integer"))) {
                return false;
            }
        }
        return true;
    }
}
