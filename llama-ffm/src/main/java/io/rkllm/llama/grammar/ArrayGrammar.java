package io.rkllm.llama.grammar;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Arrays: the {@code prefixItems} (or draft 7's array {@code items}) in order, then items of {@code items} (or
 * {@code additionalItems}), as many as {@code minItems} and {@code maxItems} allow. After a prefix without a
 * schema for the rest, no more items are written than {@code minItems} needs (as for properties, what the schema
 * does not describe is left out). {@code contains} and {@code uniqueItems} cannot be expressed.
 */
final class ArrayGrammar {
    /** llama.cpp refuses a grammar that repeats an item more than this many times (its MAX_REPETITION_THRESHOLD). */
    static final int MAX_ITEMS = 2_000;

    private final ValueRules converter;
    private final Rules rules;

    ArrayGrammar(ValueRules converter, Rules rules) {
        this.converter = converter;
        this.rules = rules;
    }

    String body(Map<String, Object> s, String at, String hint) {
        List<Object> prefix = List.of();
        Object rest = s.get("items");
        String restKey = "items";
        if (s.containsKey("prefixItems")) {
            prefix = Schemas.list(s, "prefixItems", at);
        } else if (rest instanceof List<?> tuple) {
            prefix = new ArrayList<>(tuple);
            rest = s.get("additionalItems");
            restKey = "additionalItems";
        }
        int min = Schemas.count(s, "minItems", 0, at);
        int max = Schemas.count(s, "maxItems", -1, at);
        if (max != -1 && min > max) {
            throw new UnsatisfiableSchemaException("minItems", at, "minItems is above maxItems");
        }
        if (Math.max(min, max) > MAX_ITEMS) {
            throw new UnsupportedSchemaException(max > MAX_ITEMS ? "maxItems" : "minItems", at, "counts above "
                    + MAX_ITEMS + " are not translated");
        }
        if (s.containsKey("contains") && !Schemas.isTrue(s.get("contains"))) {
            throw new UnsupportedSchemaException("contains", at, "a grammar cannot count the items that match");
        }
        if (Boolean.TRUE.equals(s.get("uniqueItems")) && (max == -1 || max > 1)) {
            throw new UnsupportedSchemaException("uniqueItems", at, "a grammar cannot compare items");
        }
        int written = max == -1 ? prefix.size() : Math.min(prefix.size(), max);
        int extraMin = Math.max(0, min - written);
        int extraMax;
        if (Boolean.FALSE.equals(rest)) {
            if (extraMin > 0) {
                throw new UnsatisfiableSchemaException("minItems", at, "more items than " + restKey + " false allows");
            }
            extraMax = 0;
        } else if (rest == null && !prefix.isEmpty()) {
            extraMax = extraMin;
        } else {
            extraMax = max == -1 ? -1 : max - written;
        }
        rules.shared("space");
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < written; i++) {
            parts.add(converter.value(prefix.get(i), at + "/prefixItems/" + i, hint + "-" + i));
        }
        StringBuilder body = new StringBuilder("\"[\" space");
        if (!parts.isEmpty()) {
            body.append(' ').append(String.join(" \",\" space ", parts));
        }
        if (extraMax != 0) {
            String item = rest == null ? rules.shared("value") : converter.value(rest, at + "/" + restKey,
                    hint + "-item");
            String more = "(\",\" space " + item + ")";
            if (!parts.isEmpty()) {
                String repeated = GbnfText.repeat(more, extraMin, extraMax);
                body.append(' ').append(repeated);
            } else {
                String tail = GbnfText.repeat(more, Math.max(0, extraMin - 1), extraMax == -1 ? -1 : extraMax - 1);
                String items = tail.isEmpty() ? item : item + " " + tail;
                body.append(' ').append(extraMin == 0 ? "(" + items + ")?" : items);
            }
        }
        return body.append(" \"]\" space").toString();
    }
}
