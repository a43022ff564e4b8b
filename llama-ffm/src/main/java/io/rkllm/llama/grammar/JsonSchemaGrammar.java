package io.rkllm.llama.grammar;

import java.util.Map;

/**
 * GBNF grammars for llama.cpp's grammar sampler ({@code SamplingParams.withGrammar}) from JSON Schemas, so that
 * structured output is valid by construction: every text the grammar lets a model write is JSON that the schema
 * accepts (under JSON Schema 2020-12, and drafts 4 to 2019-09 where they differ only in spelling). The grammar
 * covers fewer texts than the schema in ways a model does not miss: compact whitespace, properties in the
 * schema's order, no properties the schema does not name (unless {@code additionalProperties} asks for them),
 * numbers of bounded length.
 *
 * <p>The schema is given as plain Java values, as Jackson reads JSON into {@code Object}: {@code Map<String, ?>}
 * (a {@code LinkedHashMap}, whose order is the properties' order), {@code List}, {@code String}, {@code Number},
 * {@code Boolean} and {@code null}. This module knows no JSON library.
 *
 * <p>What cannot be expressed is refused with an {@link UnsupportedSchemaException} naming the keyword and
 * where it is ({@code not}, {@code if}/{@code then}/{@code else}, {@code uniqueItems}, {@code contains},
 * {@code multipleOf} other than 1, {@code patternProperties}, {@code propertyNames}, dependencies, an
 * {@code oneOf} whose alternatives overlap, a {@code pattern} outside the translated subset, a reference outside
 * the schema...): the caller then generates freely and checks the answer.
 */
public final class JsonSchemaGrammar {
    private JsonSchemaGrammar() {
    }

    /**
     * The grammar of the JSON texts {@code schema} accepts, with {@link JsonWhitespace#INDENTED} whitespace.
     *
     * @throws UnsupportedSchemaException where a keyword cannot be expressed, or no value satisfies the schema
     */
    public static String of(Map<String, ?> schema) {
        return of(schema, JsonWhitespace.INDENTED);
    }

    /**
     * The grammar of the JSON texts {@code schema} accepts.
     *
     * @throws UnsupportedSchemaException where a keyword cannot be expressed, or no value satisfies the schema
     */
    public static String of(Map<String, ?> schema, JsonWhitespace whitespace) {
        String grammar = new SchemaConverter(schema, whitespace).convert();
        GbnfCheck.check(grammar); // the converter's own output: a failure here is a bug, not the schema's fault
        return grammar;
    }

    /** The grammar of any JSON object (OpenAI's {@code response_format: json_object}). */
    public static String anyObject(JsonWhitespace whitespace) {
        return grammarOf("object", whitespace);
    }

    /** The grammar of any JSON value. */
    public static String anyValue(JsonWhitespace whitespace) {
        return grammarOf("value", whitespace);
    }

    private static String grammarOf(String shared, JsonWhitespace whitespace) {
        Rules rules = new Rules(whitespace);
        rules.define("root", rules.shared(shared));
        return rules.render();
    }
}
