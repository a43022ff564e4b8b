package io.rkllm.llama.grammar;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One conversion of a schema to a grammar: visits the schema, writing a rule per sub-schema (named after where it
 * is), and one rule per {@code $ref} target, so that recursive schemas make recursive rules. Composition is
 * resolved first ({@code $ref} with siblings and {@code allOf} by {@link SchemaMerge}, {@code anyOf}/{@code oneOf}
 * as alternatives), then {@code const}/{@code enum}, then the type's own keywords.
 */
final class SchemaConverter implements ValueRules {
    private static final int MAX_DEPTH = 100;
    private static final int MAX_GRAMMAR_CHARS = 1 << 20;

    private final Object root;
    private final SchemaRefs refs;
    private final Rules rules;
    private final Map<String, String> refRules = new LinkedHashMap<>();
    private int depth;

    SchemaConverter(Object root, JsonWhitespace whitespace) {
        this.root = root;
        this.refs = new SchemaRefs(root);
        this.rules = new Rules(whitespace);
    }

    String convert() {
        rules.define("root", visit(root, "", "root", Set.of()));
        if (rules.size() > MAX_GRAMMAR_CHARS) {
            throw new UnsupportedSchemaException("type", "", "the grammar would take more than "
                    + MAX_GRAMMAR_CHARS + " characters");
        }
        return rules.render();
    }

    Rules rules() {
        return rules;
    }

    /** A point to go back to when a part of the schema turns out to admit no value. */
    @Override
    public int mark() {
        return rules.mark();
    }

    /** Forgets the rules (and the references' rules) made since {@code mark}. */
    @Override
    public void rollback(int mark) {
        rules.rollback(mark);
        refRules.values().removeIf(name -> !rules.has(name));
    }

    /** The rule name for {@code schema} where a value is written (an object's property, an array's item). */
    @Override
    public String value(Object schema, String at, String hint) {
        return named(hint, visit(schema, at, hint, Set.of()));
    }

    /** A rule name for {@code body}: the body itself when it is one already. */
    @Override
    public String named(String hint, String body) {
        return body.matches("[A-Za-z0-9-]+") ? body : rules.add(hint, body);
    }

    /**
     * The grammar of the values {@code schema} accepts, ending with the {@code space} after a value.
     *
     * @param leading the {@code $ref}s entered since the last character written: entering one of them again
     *                would be left recursion
     */
    private String visit(Object schema, String at, String hint, Set<String> leading) {
        if (++depth > MAX_DEPTH) {
            throw new UnsupportedSchemaException("type", at, "the schema nests more than " + MAX_DEPTH + " deep");
        }
        try {
            return visitSchema(schema, at, hint, leading);
        } finally {
            depth--;
        }
    }

    private String visitSchema(Object schema, String at, String hint, Set<String> leading) {
        if (Boolean.TRUE.equals(schema)) {
            return rules.shared("value");
        }
        if (Boolean.FALSE.equals(schema)) {
            throw new UnsatisfiableSchemaException("false", at, "the schema false");
        }
        Map<String, Object> s = Schemas.map(schema, at);
        refuseGeneral(s, at);
        if (s.containsKey("$ref")) {
            String ref = Schemas.string(s, "$ref", at);
            if (Schemas.constraints(s, "$ref").isEmpty()) {
                return reference(ref, at, leading);
            }
            Map<String, Object> own = new LinkedHashMap<>(s);
            own.remove("$ref");
            return visitSchema(SchemaMerge.merge(List.of(Map.of("$ref", ref), own), at, refs), at, hint, leading);
        }
        if (s.containsKey("allOf") || (s.containsKey("anyOf") && s.containsKey("oneOf"))) {
            return visitSchema(SchemaMerge.merge(List.of(s), at, refs), at, hint, leading);
        }
        if (s.containsKey("anyOf") || s.containsKey("oneOf")) {
            return union(s, at, hint, leading);
        }
        s = SchemaMerge.normalized(s);
        Set<String> types = Schemas.types(s, at);
        if (s.containsKey("const") || s.containsKey("enum")) {
            return literals(s, types, at);
        }
        Set<String> kinds = new LinkedHashSet<>(types != null ? types : Schemas.inferredTypes(s));
        if (kinds.contains("integer") && kinds.contains("number")) {
            kinds.remove("integer");
        }
        if (kinds.isEmpty()) {
            return rules.shared("value");
        }
        if (kinds.size() == 1) {
            return kind(kinds.iterator().next(), s, at, hint);
        }
        List<String> choices = new ArrayList<>();
        for (String kind : kinds) {
            int mark = mark();
            try {
                choices.add(named(hint + "-" + kind, kind(kind, s, at, hint + "-" + kind)));
            } catch (UnsatisfiableSchemaException e) {
                rollback(mark); // this type's keywords admit no value; the others may
            }
        }
        if (choices.isEmpty()) {
            throw new UnsatisfiableSchemaException("type", at, "no type admits a value");
        }
        return String.join(" | ", choices);
    }

    private static void refuseGeneral(Map<String, Object> s, String at) {
        if (s.containsKey("not")) {
            throw new UnsupportedSchemaException("not", at, "a grammar cannot exclude what a schema matches");
        }
        if (s.containsKey("if") && (s.containsKey("then") || s.containsKey("else"))) {
            throw new UnsupportedSchemaException("if", at, "conditional schemas (if/then/else) are not translated");
        }
        for (String key : List.of("$dynamicRef", "$recursiveRef")) {
            if (s.containsKey(key)) {
                throw new UnsupportedSchemaException(key, at, "dynamic references are not followed");
            }
        }
    }

    /** The rule of a {@code $ref} target, written once and named after it; recursion refers to it by name. */
    private String reference(String ref, String at, Set<String> leading) {
        if (leading.contains(ref)) {
            throw new UnsupportedSchemaException("$ref", at, ref + " reaches itself before any JSON is written "
                    + "(left recursion: no value could ever be finished)");
        }
        String existing = refRules.get(ref);
        if (existing != null) {
            return existing;
        }
        Object target = refs.resolve(ref, at);
        String name = rules.reserve(SchemaRefs.hint(ref));
        refRules.put(ref, name);
        Set<String> entered = new HashSet<>(leading);
        entered.add(ref);
        rules.define(name, visit(target, SchemaRefs.location(ref), name, entered));
        return name;
    }

    /** {@code anyOf} or {@code oneOf}: one alternative per branch, each with the schema's other keywords. */
    private String union(Map<String, Object> s, String at, String hint, Set<String> leading) {
        String key = s.containsKey("anyOf") ? "anyOf" : "oneOf";
        List<Object> branches = Schemas.list(s, key, at);
        if (branches.isEmpty()) {
            throw new UnsupportedSchemaException(key, at, key + " must not be empty");
        }
        Map<String, Object> own = Schemas.constraints(s, key);
        List<Object> merged = new ArrayList<>();
        List<Integer> indexes = new ArrayList<>();
        for (int i = 0; i < branches.size(); i++) {
            try {
                merged.add(own.isEmpty() ? branches.get(i) : SchemaMerge.merge(List.of(own, branches.get(i)),
                        at + "/" + key + "/" + i, refs));
                indexes.add(i);
            } catch (UnsatisfiableSchemaException e) {
                // a branch that contradicts the schema's other keywords: no value takes it
            }
        }
        if (key.equals("oneOf")) {
            new OneOfCheck(refs, at).requireDisjoint(merged);
        }
        Set<String> choices = new LinkedHashSet<>();
        for (int i = 0; i < merged.size(); i++) {
            int mark = mark();
            String branchHint = hint + "-" + indexes.get(i);
            try {
                choices.add(named(branchHint, visit(merged.get(i), at + "/" + key + "/" + indexes.get(i),
                        branchHint, leading)));
            } catch (UnsatisfiableSchemaException e) {
                rollback(mark); // a branch no value takes
            }
        }
        if (choices.isEmpty()) {
            throw new UnsatisfiableSchemaException(key, at, "no alternative admits a value");
        }
        return String.join(" | ", choices);
    }

    private String literals(Map<String, Object> s, Set<String> types, String at) {
        List<Object> values = new ArrayList<>();
        if (s.containsKey("enum")) {
            values.addAll(Schemas.list(s, "enum", at));
        }
        if (s.containsKey("const")) {
            Object constant = s.get("const");
            if (s.containsKey("enum") && !JsonValues.contains(values, constant)) {
                throw new UnsatisfiableSchemaException("const", at, "the const is not among the enum's values");
            }
            values = new ArrayList<>();
            values.add(constant);
        }
        for (String key : s.keySet()) {
            if (Schemas.constrains(key) && !Set.of("type", "enum", "const").contains(key)) {
                throw new UnsupportedSchemaException(key, at, key + " beside enum or const is not checked "
                        + "against their values");
            }
        }
        Set<String> written = new LinkedHashSet<>();
        for (Object value : values) {
            if (types == null || Schemas.hasType(JsonValues.type(value), types)) {
                written.add(GbnfText.literal(JsonValues.write(value, at)));
            }
        }
        if (written.isEmpty()) {
            throw new UnsatisfiableSchemaException(s.containsKey("const") ? "const" : "enum", at,
                    "no value has the schema's type");
        }
        rules.shared("space");
        return GbnfText.group(new ArrayList<>(written)) + " space";
    }

    private String kind(String kind, Map<String, Object> s, String at, String hint) {
        return switch (kind) {
            case "null" -> rules.shared("null");
            case "boolean" -> rules.shared("boolean");
            case "integer", "number" -> number(s, kind.equals("integer"), at);
            case "string" -> new StringGrammar(this, rules).body(s, at);
            case "array" -> new ArrayGrammar(this, rules).body(s, at, hint);
            case "object" -> new ObjectGrammar(this, rules).body(s, at, hint);
            default -> throw new IllegalStateException(kind);
        };
    }

    private String number(Map<String, Object> s, boolean integer, String at) {
        if (s.containsKey("multipleOf")) {
            Object step = s.get("multipleOf");
            if (!(step instanceof Number n) || JsonValues.number(n, at).compareTo(java.math.BigDecimal.ONE) != 0) {
                throw new UnsupportedSchemaException("multipleOf", at, "only multipleOf 1 (whole numbers) is "
                        + "expressed");
            }
            integer = true;
        }
        String bounded = NumberGrammar.bounded(s, integer, at);
        if (bounded == null) {
            return rules.shared(integer ? "integer" : "number");
        }
        rules.shared("space");
        return GbnfText.item(bounded) + " space";
    }
}
