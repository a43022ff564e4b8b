package io.rkllm.server.pipeline;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code $ref}s of a client's JSON Schema, checked before the schema is used: each must name a part of the
 * schema itself (a JSON pointer from {@code #}, or an {@code $anchor}), since nothing else is ever fetched; and none
 * may lead back to itself at the same place in the value ({@code {"$ref": "#"}}, two definitions that refer to each
 * other through {@code allOf}...), which a validator follows without end. A reference under {@code properties},
 * {@code items} and the like goes one level into the value, so a recursive schema (a tree) is fine. Only the
 * keywords that hold schemas are walked, as a validator walks them: a {@code $ref} inside {@code const}, an
 * {@code x-} extension or any other unknown keyword is data.
 */
final class SchemaReferences {
    /** Keywords whose value is one schema. */
    private static final Set<String> ONE = Set.of("items", "additionalItems", "additionalProperties",
            "unevaluatedItems", "unevaluatedProperties", "contains", "propertyNames", "not", "if", "then", "else",
            "contentSchema");
    /** Keywords whose value is a list of schemas. */
    private static final Set<String> LIST = Set.of("allOf", "anyOf", "oneOf", "prefixItems", "items");
    /** Keywords whose value maps names to schemas. */
    private static final Set<String> MAP = Set.of("properties", "patternProperties", "$defs", "definitions",
            "dependentSchemas", "dependencies");
    /** Keywords whose subschemas apply to the same value as the schema they are in. */
    private static final Set<String> SAME_VALUE = Set.of("allOf", "anyOf", "oneOf", "not", "if", "then", "else",
            "dependentSchemas");

    private final JsonNode root;
    private final List<JsonNode> schemas = new ArrayList<>();
    private final Map<String, JsonNode> anchors = new HashMap<>();
    private final List<String> ids = new ArrayList<>();

    private SchemaReferences(JsonNode root) {
        this.root = root;
    }

    /** Why the schema's references cannot be followed, if they cannot. */
    static Optional<String> problem(JsonNode schema) {
        SchemaReferences refs = new SchemaReferences(schema);
        refs.collect(schema);
        Map<JsonNode, List<JsonNode>> sameValue = new IdentityHashMap<>();
        try {
            for (JsonNode s : refs.schemas) {
                sameValue.put(s, refs.sameValueEdges(s));
            }
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
        return cycle(sameValue);
    }

    /** Every schema object of the tree, its anchors and ids, by the keywords that hold schemas. */
    private void collect(JsonNode node) {
        if (!node.isObject()) {
            return; // true, false, or what a keyword holds that is no schema
        }
        schemas.add(node);
        node.properties().forEach(e -> {
            String key = e.getKey();
            JsonNode value = e.getValue();
            if ((key.equals("$anchor") || key.equals("$dynamicAnchor")) && value.isTextual()) {
                anchors.put(value.asText(), node);
            } else if (key.equals("$id") && value.isTextual()) {
                ids.add(value.asText());
            } else if (LIST.contains(key) && value.isArray()) {
                value.forEach(this::collect);
            } else if (MAP.contains(key) && value.isObject()) {
                value.forEach(this::collect);
            } else if (ONE.contains(key)) {
                collect(value);
            }
        });
    }

    /** The schemas that apply to the same value as {@code s}: its reference's target, its combinators'. */
    private List<JsonNode> sameValueEdges(JsonNode s) {
        List<JsonNode> edges = new ArrayList<>();
        JsonNode ref = s.get("$ref");
        if (ref != null && ref.isTextual()) {
            resolve(ref.asText()).ifPresent(edges::add);
        }
        s.properties().forEach(e -> {
            if (SAME_VALUE.contains(e.getKey()) && (e.getValue().isArray() || e.getValue().isObject())) {
                if (e.getKey().equals("dependentSchemas") || e.getValue().isArray()) {
                    e.getValue().forEach(edges::add);
                } else {
                    edges.add(e.getValue());
                }
            }
        });
        return edges;
    }

    /** The schema a reference names, or empty for one into a document named by an {@code $id} of the schema's. */
    private Optional<JsonNode> resolve(String ref) {
        if (ref.isEmpty() || ref.equals("#") || ref.startsWith("#/")) {
            String pointer = ref.isEmpty() ? "" : URLDecoder.decode(ref.substring(1).replace("+", "%2B"),
                    StandardCharsets.UTF_8);
            JsonNode target;
            try {
                target = root.at(JsonPointer.compile(pointer));
            } catch (IllegalArgumentException e) {
                target = null;
            }
            if (target == null || target.isMissingNode()) {
                throw new IllegalArgumentException("the $ref " + ref + " names no part of the schema");
            }
            return Optional.of(target);
        }
        if (ref.startsWith("#")) {
            JsonNode anchored = anchors.get(ref.substring(1));
            if (anchored == null) {
                throw new IllegalArgumentException("the $ref " + ref + " names no $anchor of the schema");
            }
            return Optional.of(anchored);
        }
        String document = ref.contains("#") ? ref.substring(0, ref.indexOf('#')) : ref;
        if (ids.stream().anyMatch(id -> id.equals(document) || id.endsWith("/" + document))) {
            return Optional.empty(); // a part of this schema named through its $id: the validator resolves it
        }
        throw new IllegalArgumentException("the $ref " + ref + " names another document, which is never fetched:"
                + " put its schema in $defs and refer to it as #/$defs/...");
    }

    /** A chain of same-value references that returns to where it started, if there is one. */
    private static Optional<String> cycle(Map<JsonNode, List<JsonNode>> sameValue) {
        Map<JsonNode, Integer> state = new IdentityHashMap<>(); // 1: on the current path, 2: done
        for (JsonNode start : sameValue.keySet()) {
            if (visit(start, sameValue, state)) {
                return Optional.of("its $refs lead back to themselves without going into the value (such as"
                        + " {\"$ref\": \"#\"}, or definitions that refer to each other through allOf or anyOf):"
                        + " a validator would follow them without end");
            }
        }
        return Optional.empty();
    }

    private static boolean visit(JsonNode node, Map<JsonNode, List<JsonNode>> sameValue,
                                 Map<JsonNode, Integer> state) {
        Integer seen = state.get(node);
        if (seen != null) {
            return seen == 1;
        }
        state.put(node, 1);
        for (JsonNode next : sameValue.getOrDefault(node, List.of())) {
            if (visit(next, sameValue, state)) {
                return true;
            }
        }
        state.put(node, 2);
        return false;
    }
}
