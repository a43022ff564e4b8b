package io.rkllm.server.pipeline;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
 * {@code items} and the like goes one level into the value, so a recursive schema (a tree) is fine.
 */
final class SchemaReferences {
    /** Keywords whose subschemas apply to the same value as the schema they are in. */
    private static final Set<String> SAME_VALUE = Set.of("allOf", "anyOf", "oneOf", "not", "if", "then", "else",
            "dependentSchemas");
    /** Keywords whose values are data, not schemas: a {@code $ref} key there is not a reference. */
    private static final Set<String> DATA = Set.of("const", "enum", "default", "examples");

    private final JsonNode root;
    private final Map<JsonNode, List<JsonNode>> sameValue = new IdentityHashMap<>();
    private final Map<String, JsonNode> anchors = new java.util.HashMap<>();
    private final List<String> ids = new ArrayList<>();

    private SchemaReferences(JsonNode root) {
        this.root = root;
    }

    /** Why the schema's references cannot be followed, if they cannot. */
    static Optional<String> problem(JsonNode schema) {
        SchemaReferences refs = new SchemaReferences(schema);
        refs.collectAnchors(schema);
        try {
            refs.walk(schema, "#");
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
        return refs.cycle();
    }

    private void collectAnchors(JsonNode node) {
        if (node.isObject()) {
            node.properties().forEach(e -> {
                if (e.getKey().equals("$anchor") && e.getValue().isTextual()) {
                    anchors.put(e.getValue().asText(), node);
                } else if (e.getKey().equals("$id") && e.getValue().isTextual()) {
                    ids.add(e.getValue().asText());
                }
                if (!DATA.contains(e.getKey())) {
                    collectAnchors(e.getValue());
                }
            });
        } else if (node.isArray()) {
            node.forEach(this::collectAnchors);
        }
    }

    /** Records each schema's same-value edges, resolving every reference on the way. */
    private void walk(JsonNode node, String at) {
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(node.get(i), at + "/" + i);
            }
            return;
        }
        if (!node.isObject()) {
            return;
        }
        List<JsonNode> edges = new ArrayList<>();
        JsonNode ref = node.get("$ref");
        if (ref != null && ref.isTextual()) {
            resolve(ref.asText(), at).ifPresent(edges::add);
        }
        node.properties().forEach(e -> {
            if (SAME_VALUE.contains(e.getKey())) {
                JsonNode v = e.getValue();
                if (e.getKey().equals("dependentSchemas") || v.isArray()) {
                    v.forEach(edges::add);
                } else {
                    edges.add(v);
                }
            }
        });
        sameValue.put(node, edges);
        node.properties().forEach(e -> {
            if (!DATA.contains(e.getKey())) {
                walk(e.getValue(), at + "/" + e.getKey());
            }
        });
    }

    /** The schema a reference names, or empty for one into a document named by an {@code $id} of the schema's. */
    private Optional<JsonNode> resolve(String ref, String at) {
        if (ref.equals("#") || ref.startsWith("#/")) {
            String pointer = URLDecoder.decode(ref.substring(1).replace("+", "%2B"), StandardCharsets.UTF_8);
            JsonNode target;
            try {
                target = root.at(JsonPointer.compile(pointer));
            } catch (IllegalArgumentException e) {
                target = null;
            }
            if (target == null || target.isMissingNode()) {
                throw new IllegalArgumentException("the $ref " + ref + " at " + at + " names no part of the schema");
            }
            return Optional.of(target);
        }
        if (ref.startsWith("#")) {
            JsonNode anchored = anchors.get(ref.substring(1));
            if (anchored == null) {
                throw new IllegalArgumentException("the $ref " + ref + " at " + at + " names no $anchor of the schema");
            }
            return Optional.of(anchored);
        }
        String document = ref.contains("#") ? ref.substring(0, ref.indexOf('#')) : ref;
        if (ids.stream().anyMatch(id -> id.equals(document) || id.endsWith("/" + document))) {
            return Optional.empty(); // a part of this schema named through its $id: the validator resolves it
        }
        throw new IllegalArgumentException("the $ref " + ref + " at " + at + " names another document, which is"
                + " never fetched: put its schema in $defs and refer to it as #/$defs/...");
    }

    /** A chain of same-value references that returns to where it started, if there is one. */
    private Optional<String> cycle() {
        Map<JsonNode, Integer> state = new IdentityHashMap<>(); // 1: on the current path, 2: done
        for (JsonNode start : sameValue.keySet()) {
            if (visit(start, state)) {
                return Optional.of("its $refs lead back to themselves without going into the value (such as"
                        + " {\"$ref\": \"#\"}, or definitions that refer to each other through allOf or anyOf):"
                        + " a validator would follow them without end");
            }
        }
        return Optional.empty();
    }

    private boolean visit(JsonNode node, Map<JsonNode, Integer> state) {
        Integer seen = state.get(node);
        if (seen != null) {
            return seen == 1;
        }
        state.put(node, 1);
        for (JsonNode next : sameValue.getOrDefault(node, List.of())) {
            if (visit(next, state)) {
                return true;
            }
        }
        state.put(node, 2);
        return false;
    }
}
