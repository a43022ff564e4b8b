package io.rkllm.llama.grammar;

import static io.rkllm.llama.grammar.SchemaCatalogue.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What a grammar cannot express is refused, naming the keyword and where it is, so that the caller falls back. */
class RefusalTest {
    static Stream<Arguments> refused() {
        return Stream.of(
                arguments("{\"not\": {\"type\": \"string\"}}", "not", ""),
                arguments("{\"if\": {\"minimum\": 1}, \"then\": {\"maximum\": 5}}", "if", ""),
                arguments("{\"properties\": {\"a\": {\"type\": \"array\", \"uniqueItems\": true}}}", "uniqueItems",
                        "/properties/a"),
                arguments("{\"type\": \"array\", \"contains\": {\"const\": 1}}", "contains", ""),
                arguments("{\"type\": \"integer\", \"multipleOf\": 3}", "multipleOf", ""),
                arguments("{\"type\": \"object\", \"patternProperties\": {\"^x\": {}}}", "patternProperties", ""),
                arguments("{\"type\": \"object\", \"propertyNames\": {\"maxLength\": 3}}", "propertyNames", ""),
                arguments("{\"type\": \"object\", \"dependentRequired\": {\"a\": [\"b\"]}}", "dependentRequired", ""),
                arguments("{\"type\": \"object\", \"minProperties\": 1}", "minProperties", ""),
                arguments("{\"properties\": {\"a\": {}, \"b\": {}}, \"maxProperties\": 1}", "maxProperties", ""),
                arguments("{\"$ref\": \"https://example.com/schema.json\"}", "$ref", ""),
                arguments("{\"$ref\": \"#/$defs/missing\"}", "$ref", ""),
                arguments("{\"$ref\": \"#thing\"}", "$ref", ""),
                arguments("{\"$dynamicRef\": \"#meta\"}", "$dynamicRef", ""),
                arguments("{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"}, \"b\": {\"anyOf\": [{\"$ref\": \"#/$defs/a\"}]}},"
                        + " \"$ref\": \"#/$defs/a\"}", "$ref", "/$defs/b/anyOf/0"),
                arguments("{\"$defs\": {\"a\": {\"allOf\": [{\"$ref\": \"#/$defs/a\"}]}}, \"$ref\": \"#/$defs/a\"}", "$ref",
                        "/$defs/a"),
                arguments("{\"oneOf\": [{\"type\": \"integer\"}, {\"type\": \"number\"}]}", "oneOf", ""),
                arguments("{\"oneOf\": [{\"properties\": {\"a\": {}}}, {\"properties\": {\"b\": {}}}]}", "oneOf", ""),
                arguments("{\"allOf\": [{\"pattern\": \"a\"}, {\"pattern\": \"b\"}]}", "pattern", ""),
                arguments("{\"type\": \"string\", \"pattern\": \"^a$\", \"maxLength\": 3}", "maxLength", ""),
                arguments("{\"type\": \"string\", \"format\": \"date\", \"minLength\": 3}", "minLength", ""),
                arguments("{\"enum\": [\"a\", \"bb\"], \"maxLength\": 1}", "maxLength", ""),
                arguments("{\"type\": \"string\", \"maxLength\": 100000}", "maxLength", ""),
                // llama.cpp refuses more than 2,000 repetitions of one item
                arguments("{\"type\": \"string\", \"minLength\": 3000}", "minLength", ""),
                arguments("{\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 2002}", "minItems",
                        ""),
                arguments("{\"type\": \"frobnicate\"}", "type", ""),
                arguments("{\"type\": \"string\", \"minLength\": -1}", "minLength", ""),
                arguments("{\"properties\": {\"a\": 5}}", "type", "/properties/a"));
    }

    @ParameterizedTest
    @MethodSource("refused")
    void refusedWithTheKeywordAndWhere(String schemaJson, String keyword, String location) {
        assertThatThrownBy(() -> JsonSchemaGrammar.of(schema(schemaJson)))
                .isInstanceOf(UnsupportedSchemaException.class)
                .satisfies(e -> {
                    UnsupportedSchemaException u = (UnsupportedSchemaException) e;
                    assertThat(u.keyword()).isEqualTo(keyword);
                    assertThat(u.location()).isEqualTo(location);
                    assertThat(u.getMessage()).contains("'" + keyword + "'");
                });
    }

    static Stream<Arguments> unsatisfiable() {
        return Stream.of(
                arguments("{\"type\": \"string\", \"minLength\": 3, \"maxLength\": 2}", "minLength"),
                arguments("{\"type\": \"array\", \"minItems\": 3, \"maxItems\": 2}", "minItems"),
                arguments("{\"prefixItems\": [{}], \"items\": false, \"minItems\": 2}", "minItems"),
                arguments("{\"properties\": {\"a\": false}, \"required\": [\"a\"]}", "false"),
                arguments("{\"required\": [\"a\"], \"additionalProperties\": false}", "required"),
                arguments("{\"allOf\": [{\"type\": \"string\"}, {\"type\": \"integer\"}]}", "type"),
                arguments("{\"allOf\": [{\"required\": [\"a\"]}, {\"additionalProperties\": false}]}",
                        "additionalProperties"),
                arguments("{\"enum\": [1, 2], \"const\": 3}", "const"),
                arguments("{\"type\": \"string\", \"enum\": [1, 2]}", "enum"),
                arguments("{\"anyOf\": [false, {\"type\": \"string\", \"maxLength\": 1, \"minLength\": 2}]}", "anyOf"),
                arguments("{\"type\": []}", "type"));
    }

    @ParameterizedTest
    @MethodSource("unsatisfiable")
    void schemasNoValueSatisfiesAreRefusedToo(String schemaJson, String keyword) {
        assertThatThrownBy(() -> JsonSchemaGrammar.of(schema(schemaJson)))
                .isInstanceOf(UnsupportedSchemaException.class).hasMessageContaining("no value satisfies it")
                .satisfies(e -> assertThat(((UnsupportedSchemaException) e).keyword()).isEqualTo(keyword));
    }

    @Test
    void keywordsThatConstrainNothingAreIgnored() {
        Map<String, Object> schema = schema("""
                {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:x", "title": "t",
                 "description": "d", "default": 1, "examples": [1], "deprecated": true, "readOnly": true,
                 "$comment": "c", "x-custom": {"not": 1}, "nullable": true, "discriminator": {"propertyName": "k"},
                 "type": "integer", "contentMediaType": "text/plain", "if": {"minimum": 3},
                 "unevaluatedProperties": false, "uniqueItems": true, "minLength": 4}""");
        assertThat(JsonSchemaGrammar.of(schema, JsonWhitespace.COMPACT)).startsWith("root ::= integer\n");
    }

    @Test
    void oneOfThatCannotOverlapIsAccepted() {
        for (String json : List.of(
                "{\"oneOf\": [{\"type\": \"string\"}, {\"type\": \"integer\"}, {\"type\": \"null\"}]}",
                "{\"oneOf\": [{\"enum\": [1, 2]}, {\"const\": 3}, {\"type\": \"string\"}]}",
                "{\"type\": \"object\", \"oneOf\": [{\"properties\": {\"k\": {\"const\": \"a\"}}, \"required\": [\"k\"]},"
                        + " {\"properties\": {\"k\": {\"enum\": [\"b\", \"c\"]}}, \"required\": [\"k\"]}]}",
                "{\"oneOf\": [{\"$ref\": \"#/$defs/a\"}, {\"$ref\": \"#/$defs/b\"}], \"$defs\": {"
                        + "\"a\": {\"properties\": {\"x\": {}}, \"required\": [\"x\"]},"
                        + "\"b\": {\"properties\": {\"y\": {}}, \"required\": [\"y\"]}}}")) {
            assertThat(JsonSchemaGrammar.of(schema(json))).startsWith("root ::= ");
        }
    }
}
