package io.rkllm.llama.grammar;

import java.util.Map;

/** Strings: a known {@code format}, a {@code pattern}, or characters from {@code minLength} to {@code maxLength}. */
final class StringGrammar {
    /**
     * llama.cpp refuses a grammar that repeats an item more than this many times (its MAX_REPETITION_THRESHOLD: it
     * unrolls a bounded repetition into one rule per step); longer bounds are not translated.
     */
    static final int MAX_LENGTH = ArrayGrammar.MAX_ITEMS;
    private static final String QUOTE = "\"\\\"\"";

    private final ValueRules converter;
    private final Rules rules;

    StringGrammar(ValueRules converter, Rules rules) {
        this.converter = converter;
        this.rules = rules;
    }

    String body(Map<String, Object> s, String at) {
        boolean lengths = s.containsKey("minLength") || s.containsKey("maxLength");
        Object format = s.get("format");
        if (StringFormats.isKnown(format)) {
            for (String key : new String[] {"pattern", "minLength", "maxLength"}) {
                if (s.containsKey(key)) {
                    throw new UnsupportedSchemaException(key, at, key + " beside format " + format
                            + " is not translated");
                }
            }
            String content = converter.named(format + "-content", StringFormats.content((String) format));
            return quoted(content);
        }
        if (s.containsKey("pattern")) {
            if (lengths) {
                throw new UnsupportedSchemaException(s.containsKey("minLength") ? "minLength" : "maxLength", at,
                        "a length beside a pattern is not translated");
            }
            String content = PatternGrammar.content(Schemas.string(s, "pattern", at), at, rules.shared("char"));
            return quoted(content);
        }
        if (lengths) {
            int min = Schemas.count(s, "minLength", 0, at);
            int max = Schemas.count(s, "maxLength", -1, at);
            if (max != -1 && min > max) {
                throw new UnsatisfiableSchemaException("minLength", at, "minLength is above maxLength");
            }
            if (Math.max(min, max) > MAX_LENGTH) {
                throw new UnsupportedSchemaException(max > MAX_LENGTH ? "maxLength" : "minLength", at,
                        "lengths above " + MAX_LENGTH + " are not translated");
            }
            return quoted(GbnfText.repeat(rules.shared("char"), min, max));
        }
        return rules.shared("string");
    }

    private String quoted(String content) {
        rules.shared("space");
        return content.isEmpty() ? QUOTE + " " + QUOTE + " space" : QUOTE + " " + content + " " + QUOTE + " space";
    }
}
