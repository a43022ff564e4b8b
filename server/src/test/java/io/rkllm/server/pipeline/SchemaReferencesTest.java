package io.rkllm.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A schema's references are followed before it is used: each must name a part of it, and none may loop in place. */
class SchemaReferencesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Optional<String> problem(String schema) throws Exception {
        return SchemaReferences.problem(JSON.readTree(schema));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\"}}}",
        // a tree: the reference goes one level into the value each time
        "{\"type\": \"object\", \"properties\": {\"children\": {\"type\": \"array\", \"items\": {\"$ref\": \"#\"}}}}",
        "{\"$defs\": {\"n\": {\"anyOf\": [{\"type\": \"null\"}, {\"properties\": {\"next\": {\"$ref\": \"#/$defs/n\"}}}]}},"
            + " \"$ref\": \"#/$defs/n\"}",
        "{\"$defs\": {\"a b\": {\"type\": \"integer\"}, \"x/y\": {\"type\": \"string\"}}, \"properties\": {\"p\": "
            + "{\"$ref\": \"#/$defs/a%20b\"}, \"q\": {\"$ref\": \"#/$defs/x~1y\"}}}",
        "{\"$defs\": {\"i\": {\"$anchor\": \"int\", \"type\": \"integer\"}}, \"items\": {\"$ref\": \"#int\"}}",
        "{\"$id\": \"https://example.com/person\", \"$defs\": {\"n\": {\"type\": \"string\"}},"
            + " \"properties\": {\"n\": {\"$ref\": \"https://example.com/person#/$defs/n\"}}}",
        // data, not a schema
        "{\"const\": {\"$ref\": \"#/nowhere\"}}",
        "{\"type\": \"object\", \"x-origin\": {\"$ref\": \"elsewhere.json\"}}",
        // property names that are keywords elsewhere
        "{\"properties\": {\"examples\": {\"$anchor\": \"ex\", \"type\": \"string\"}, \"e\": {\"$ref\": \"#ex\"}}}",
        "{\"properties\": {\"a\": {\"$ref\": \"\"}}}"
    })
    void followableReferencesPass(String schema) throws Exception {
        assertThat(problem(schema)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"$ref\": \"#\"}",
        "{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"}, \"b\": {\"$ref\": \"#/$defs/a\"}}, \"$ref\": \"#/$defs/a\"}",
        "{\"$defs\": {\"a\": {\"allOf\": [{\"type\": \"object\"}, {\"$ref\": \"#/$defs/a\"}]}},"
            + " \"properties\": {\"x\": {\"$ref\": \"#/$defs/a\"}}}",
        "{\"anyOf\": [{\"type\": \"string\"}, {\"not\": {\"$ref\": \"#\"}}]}",
        "{\"properties\": {\"default\": {\"$ref\": \"#/properties/default\"}}}"
    })
    void referencesThatLoopInPlaceAreNamed(String schema) throws Exception {
        assertThat(problem(schema)).hasValueSatisfying(p -> assertThat(p).contains("lead back to themselves"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"properties\": {\"a\": {\"$ref\": \"#/$defs/missing\"}}}",
        "{\"items\": {\"$ref\": \"#nowhere\"}}",
        "{\"properties\": {\"a\": {\"$ref\": \"https://example.com/schema.json\"}}}",
        "{\"properties\": {\"a\": {\"$ref\": \"other.json#/x\"}}}",
        "{\"properties\": {\"default\": {\"$ref\": \"#/$defs/missing\"}}}"
    })
    void referencesToNothingHereAreNamed(String schema) throws Exception {
        assertThat(problem(schema)).hasValueSatisfying(p -> assertThat(p).contains("the $ref "));
    }
}
