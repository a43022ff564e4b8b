package io.rkllm.llama.grammar;

import static io.rkllm.llama.grammar.SchemaCatalogue.schema;
import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.grammar.JsonWhitespace;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The grammar text of each construct, and what it lets through (by the grammar's own meaning: {@link GbnfMatcher}). */
class JsonSchemaGrammarTest {
    private static final String SPACE = "space ::= \" \"?\n";

    private static String grammar(String schemaJson) {
        return JsonSchemaGrammar.of(schema(schemaJson), JsonWhitespace.COMPACT);
    }

    private static GbnfMatcher matcher(String schemaJson) {
        return new GbnfMatcher(grammar(schemaJson));
    }

    @Test
    void anObjectWritesItsPropertiesInOrderTheRequiredOnesAlways() {
        assertThat(grammar("""
                {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                 "required": ["name"]}""")).isEqualTo("""
                root ::= "{" space name-kv ("," space age-kv)? "}" space
                space ::= " "?
                string ::= "\\"" char* "\\"" space
                char ::= [^"\\\\\\x00-\\x1F\\x7F] | "\\\\" (["\\\\/bfnrt] | "u" ([0-9a-cA-CefEF] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2}))
                name-kv ::= "\\"name\\"" space ":" space string
                integer ::= "-"? ("0" | [1-9] [0-9]{0,15}) space
                age-kv ::= "\\"age\\"" space ":" space integer
                """);
    }

    @Test
    void optionalPropertiesMayEachBeLeftOutWithCommasOnlyBetween() {
        GbnfMatcher m = matcher("""
                {"properties": {"a": {"const": 1}, "b": {"const": 2}, "c": {"const": 3}, "d": {"const": 4}},
                 "required": ["c"]}""");
        for (String text : List.of("{\"c\":3}", "{\"a\":1,\"c\":3}", "{\"b\":2,\"c\":3}", "{\"a\":1,\"b\":2,\"c\":3}",
                "{\"c\":3,\"d\":4}", "{\"a\":1,\"b\":2,\"c\":3,\"d\":4}", "{ \"a\": 1, \"c\": 3 }")) {
            assertThat(m.matches(text)).as(text).isTrue();
        }
        for (String text : List.of("{}", "{\"a\":1}", "{\"c\":3,}", "{,\"c\":3}", "{\"c\":3,\"a\":1}",
                "{\"c\":3,\"c\":3}", "{\"c\":3,\"e\":5}", "{\"a\":1\"c\":3}")) {
            assertThat(m.matches(text)).as(text).isFalse();
        }
        GbnfMatcher none = matcher("{\"properties\": {\"a\": {\"const\": 1}, \"b\": {\"const\": 2}}}");
        assertThat(List.of("{}", "{\"a\":1}", "{\"b\":2}", "{\"a\":1,\"b\":2}")).allMatch(none::matches);
        assertThat(none.matches("{\"b\":2,\"a\":1}")).isFalse();
    }

    @Test
    void additionalPropertiesTakeOtherNamesOnlyAndAsManyAsMaxPropertiesLeaves() {
        GbnfMatcher m = matcher("""
                {"properties": {"ab": {"const": 1}}, "additionalProperties": {"type": "boolean"},
                 "maxProperties": 3}""");
        for (String text : List.of("{}", "{\"ab\":1}", "{\"a\":true}", "{\"abc\":false}", "{\"\":true}",
                "{\"ab\":1,\"x\":true,\"y\":false}", "{\"b\":true,\"é\":false}")) {
            assertThat(m.matches(text)).as(text).isTrue();
        }
        for (String text : List.of("{\"ab\":true}", "{\"x\":1}", "{\"ab\":1,\"x\":true,\"y\":false,\"z\":true}",
                "{\"x\":true,\"ab\":1}", "{\"a\\u0062\":true}")) {
            assertThat(m.matches(text)).as(text).isFalse();
        }
        assertThat(grammar("{\"type\": \"object\"}")).startsWith("root ::= object\n");
        assertThat(grammar("{\"type\": \"object\", \"additionalProperties\": true}")).startsWith("root ::= object\n");
        assertThat(matcher("{\"type\": \"object\", \"properties\": {}}").matches("{}")).isTrue();
        assertThat(matcher("{\"type\": \"object\", \"properties\": {}}").matches("{\"a\":1}")).isFalse();
        GbnfMatcher counted = matcher("{\"type\": \"object\", \"maxProperties\": 1}");
        assertThat(counted.matches("{\"a\":[1,{}]}")).isTrue();
        assertThat(counted.matches("{\"a\":1,\"b\":2}")).isFalse();
    }

    @Test
    void requiredNamesWithoutASchemaTakeAnyValue() {
        GbnfMatcher m = matcher("{\"properties\": {\"a\": {\"type\": \"null\"}}, \"required\": [\"z\"]}");
        assertThat(m.matches("{\"z\":[1,\"x\"]}")).isTrue();
        assertThat(m.matches("{\"a\":null,\"z\":{}}")).isTrue();
        assertThat(m.matches("{\"a\":null}")).isFalse();
    }

    @Test
    void arraysCountTheirItems() {
        assertThat(grammar("{\"type\": \"array\", \"items\": {\"type\": \"boolean\"}, \"minItems\": 1, \"maxItems\": 3}"))
                .startsWith("root ::= \"[\" space boolean (\",\" space boolean){0,2} \"]\" space\n");
        assertThat(grammar("{\"type\": \"array\", \"items\": {\"type\": \"boolean\"}}"))
                .startsWith("root ::= \"[\" space (boolean (\",\" space boolean)*)? \"]\" space\n");
        assertThat(grammar("{\"type\": \"array\"}")).startsWith("root ::= \"[\" space (value (\",\" space value)*)?");
        GbnfMatcher two = matcher("{\"items\": {\"type\": \"integer\"}, \"minItems\": 2, \"maxItems\": 2}");
        assertThat(two.matches("[1,2]")).isTrue();
        assertThat(List.of("[]", "[1]", "[1,2,3]", "[1,2,]")).noneMatch(two::matches);
        GbnfMatcher none = matcher("{\"type\": \"array\", \"maxItems\": 0}");
        assertThat(none.matches("[]")).isTrue();
        assertThat(none.matches("[1]")).isFalse();
    }

    @Test
    void tuplesWritePrefixItemsThenTheRest() {
        GbnfMatcher m = matcher("""
                {"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "null"},
                 "maxItems": 3}""");
        assertThat(List.of("[\"a\",1]", "[\"a\",1,null]")).allMatch(m::matches);
        assertThat(List.of("[\"a\"]", "[\"a\",1,null,null]", "[1,\"a\"]")).noneMatch(m::matches);
        GbnfMatcher closed = matcher("{\"prefixItems\": [{\"const\": 1}], \"minItems\": 2}");
        assertThat(closed.matches("[1,\"anything\"]")).isTrue();
        assertThat(closed.matches("[1]")).isFalse();
        GbnfMatcher draft7 = matcher("{\"items\": [{\"const\": 1}], \"additionalItems\": {\"const\": 2}}");
        assertThat(List.of("[1]", "[1,2]", "[1,2,2]")).allMatch(draft7::matches);
        GbnfMatcher cut = matcher("{\"prefixItems\": [{\"const\": 1}, {\"const\": 2}], \"maxItems\": 1}");
        assertThat(cut.matches("[1]")).isTrue();
        assertThat(cut.matches("[1,2]")).isFalse();
    }

    @Test
    void stringsCountCharactersNotEscapesAndNeverSurrogateEscapes() {
        assertThat(grammar("{\"type\": \"string\", \"minLength\": 2, \"maxLength\": 3}"))
                .startsWith("root ::= \"\\\"\" char{2,3} \"\\\"\" space\n");
        GbnfMatcher m = matcher("{\"type\": \"string\", \"minLength\": 2, \"maxLength\": 3}");
        assertThat(List.of("\"ab\"", "\"a\\nb\"", "\"\\u00e9\\\"\"", "\"😀é\"", "\"a/b\"", "\"a\\/\"")).allMatch(m::matches);
        assertThat(List.of("\"a\"", "\"abcd\"", "\"a\nb\"", "\"\\ud83d\\ude00\"", "\"a\\x\"", "\"a\"b\""))
                .noneMatch(m::matches);
        assertThat(grammar("{\"type\": \"string\", \"maxLength\": 0}")).startsWith("root ::= \"\\\"\" \"\\\"\" space");
    }

    @Test
    void enumAndConstAreTheirJsonTexts() {
        assertThat(grammar("{\"enum\": [\"a\\\"b\", 1.5, null, [1, {\"k\": true}]]}"))
                .startsWith("root ::= (\"\\\"a\\\\\\\"b\\\"\" | \"1.5\" | \"null\" | \"[1,{\\\"k\\\":true}]\") space\n");
        assertThat(grammar("{\"type\": \"string\", \"enum\": [\"x\", 2, null]}")).startsWith("root ::= \"\\\"x\\\"\" space");
        assertThat(grammar("{\"const\": \"é\\n\"}")).startsWith("root ::= \"\\\"\\xE9\\\\n\\\"\" space");
        assertThat(grammar("{\"type\": \"number\", \"enum\": [1, 2.5, \"3\"]}")).startsWith("root ::= (\"1\" | \"2.5\") space");
    }

    @Test
    void typeListsAreAlternatives() {
        assertThat(grammar("{\"type\": [\"string\", \"null\"], \"maxLength\": 2}")).startsWith("root ::= root-string | null\n")
                .contains("root-string ::= \"\\\"\" char{0,2} \"\\\"\" space\n");
        assertThat(grammar("{\"type\": [\"integer\", \"number\"]}")).startsWith("root ::= number\n");
        assertThat(grammar("{}")).startsWith("root ::= value\n");
        assertThat(grammar("{\"description\": \"anything\", \"x-vendor\": 1}")).startsWith("root ::= value\n");
    }

    @Test
    void noTypeMeansTheTypesItsKeywordsAreAbout() {
        GbnfMatcher m = matcher("{\"maxLength\": 2, \"maximum\": 3, \"maxItems\": 0}");
        assertThat(List.of("\"ab\"", "3", "-1.5", "[]")).allMatch(m::matches);
        assertThat(List.of("\"abc\"", "4", "[1]", "{}", "null", "true")).noneMatch(m::matches);
    }

    @Test
    void referencesBecomeNamedRulesSoRecursionWorks() {
        String text = grammar("""
                {"$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
                 "$ref": "#/$defs/node"}""");
        assertThat(text).startsWith("root ::= node\nnode ::= \"{\" space node-next-kv? \"}\" space\n")
                .contains("node-next-kv ::= \"\\\"next\\\"\" space \":\" space node\n");
        GbnfMatcher m = new GbnfMatcher(text);
        assertThat(List.of("{}", "{\"next\":{}}", "{\"next\":{\"next\":{}}}")).allMatch(m::matches);
        GbnfMatcher self = matcher("{\"type\": \"array\", \"items\": {\"$ref\": \"#\"}}");
        assertThat(List.of("[]", "[[]]", "[[],[[]]]")).allMatch(self::matches);
        GbnfMatcher pointer = matcher("""
                {"properties": {"a": {"type": "integer", "maximum": 1}, "b": {"$ref": "#/properties/a"},
                 "c~/d": {"const": 1}, "e": {"$ref": "#/properties/c~0~1d"}}, "required": ["a", "b", "c~/d", "e"]}""");
        assertThat(pointer.matches("{\"a\":1,\"b\":-3,\"c~/d\":1,\"e\":1}")).isTrue();
        assertThat(pointer.matches("{\"a\":1,\"b\":2,\"c~/d\":1,\"e\":1}")).isFalse();
    }

    @Test
    void anyOfIsAUnionAndKeepsTheSchemasOtherKeywords() {
        GbnfMatcher m = matcher("""
                {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"],
                 "anyOf": [{"properties": {"a": {"const": 1}}, "required": ["a"]},
                           {"properties": {"b": {"const": 2}}, "required": ["b"]}]}""");
        assertThat(List.of("{\"id\":5,\"a\":1}", "{\"id\":5,\"b\":2}")).allMatch(m::matches);
        assertThat(List.of("{\"id\":5}", "{\"a\":1}", "{\"id\":5,\"a\":1,\"b\":2}")).noneMatch(m::matches);
    }

    @Test
    void oneOfWithExclusiveAlternativesIsAUnion() {
        assertThat(matcher("{\"oneOf\": [{\"type\": \"string\"}, {\"type\": \"integer\"}]}").matches("3")).isTrue();
        assertThat(matcher("{\"oneOf\": [{\"const\": 1}, {\"const\": 2}]}").matches("2")).isTrue();
        GbnfMatcher required = matcher("""
                {"oneOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]},
                           {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}""");
        assertThat(List.of("{\"a\":1}", "{\"b\":1}")).allMatch(required::matches);
        assertThat(required.matches("{\"a\":1,\"b\":1}")).isFalse();
    }

    @Test
    void allOfMergesObjectsAndIntersectsTheRest() {
        GbnfMatcher m = matcher("""
                {"allOf": [{"type": "object", "properties": {"a": {"type": "integer", "minimum": 0}},
                            "required": ["a"]},
                           {"properties": {"a": {"maximum": 5}, "b": {"type": "string"}}, "required": ["b"]}]}""");
        assertThat(m.matches("{\"a\":5,\"b\":\"x\"}")).isTrue();
        assertThat(List.of("{\"a\":6,\"b\":\"x\"}", "{\"a\":1}", "{\"b\":\"x\"}")).noneMatch(m::matches);
        GbnfMatcher closed = matcher("""
                {"allOf": [{"properties": {"a": {"const": 1}, "b": {"const": 2}}, "additionalProperties": false},
                           {"properties": {"b": {"const": 2}, "c": {"const": 3}}}]}""");
        assertThat(List.of("{}", "{\"a\":1}", "{\"a\":1,\"b\":2}")).allMatch(closed::matches);
        assertThat(closed.matches("{\"c\":3}")).isFalse();
        GbnfMatcher types = matcher("{\"allOf\": [{\"type\": [\"number\", \"string\"]}, {\"type\": \"integer\"}]}");
        assertThat(types.matches("3")).isTrue();
        assertThat(List.of("3.5", "\"3\"")).noneMatch(types::matches);
        GbnfMatcher enums = matcher("{\"allOf\": [{\"enum\": [1, 2, 3]}, {\"enum\": [2, 3, 4]}, {\"not_a_keyword\": 1}]}");
        assertThat(List.of("2", "3")).allMatch(enums::matches);
        assertThat(List.of("1", "4")).noneMatch(enums::matches);
        GbnfMatcher distributed = matcher("""
                {"allOf": [{"type": "integer"}, {"anyOf": [{"type": "string"}, {"minimum": 10}]}]}""");
        assertThat(distributed.matches("12")).isTrue();
        assertThat(List.of("9", "\"a\"")).noneMatch(distributed::matches);
    }

    @Test
    void aRefWithSiblingsIsAnAllOf() {
        GbnfMatcher m = matcher("""
                {"$defs": {"n": {"type": "integer", "maximum": 10}}, "$ref": "#/$defs/n", "minimum": 8}""");
        assertThat(List.of("8", "9", "10")).allMatch(m::matches);
        assertThat(List.of("7", "11")).noneMatch(m::matches);
    }

    @Test
    void unsatisfiableBranchesAreDropped() {
        GbnfMatcher m = matcher("{\"type\": \"string\", \"anyOf\": [{\"type\": \"integer\"}, {\"maxLength\": 1}, false]}");
        assertThat(m.matches("\"a\"")).isTrue();
        assertThat(List.of("1", "\"ab\"")).noneMatch(m::matches);
        GbnfMatcher optional = matcher("{\"properties\": {\"a\": false, \"b\": {\"const\": 1}}}");
        assertThat(optional.matches("{\"b\":1}")).isTrue();
        assertThat(optional.matches("{\"a\":1}")).isFalse();
        GbnfMatcher twice = matcher("""
                {"$defs": {"none": {"type": "string", "minLength": 2, "maxLength": 1}},
                 "properties": {"a": {"$ref": "#/$defs/none"}, "b": {"$ref": "#/$defs/none"}, "c": {"const": 1}}}""");
        assertThat(twice.matches("{\"c\":1}")).isTrue();
        assertThat(twice.matches("{\"b\":\"x\"}")).isFalse();
    }

    @Test
    void whitespaceIsBoundedEitherWay() {
        String indented = JsonSchemaGrammar.of(schema("{\"type\": \"array\"}"));
        assertThat(indented).contains("space ::= | \" \" | \"\\n\" [ \\t]{0,20}\n");
        GbnfMatcher m = new GbnfMatcher(indented);
        assertThat(m.matches("[\n  1,\n  2\n]\n")).isTrue();
        assertThat(m.matches("[\n\n1]")).isFalse();
        assertThat(m.matches("[\n" + " ".repeat(21) + "1]")).isFalse();
        GbnfMatcher compact = matcher("{\"type\": \"array\"}");
        assertThat(compact.matches("[ 1, 2 ] ")).isTrue();
        assertThat(List.of("[\n1]", "[  1]", " [1]")).noneMatch(compact::matches);
    }

    @Test
    void anyObjectAndAnyValue() {
        GbnfMatcher object = new GbnfMatcher(JsonSchemaGrammar.anyObject(JsonWhitespace.COMPACT));
        assertThat(List.of("{}", "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}")).allMatch(object::matches);
        assertThat(List.of("[]", "1", "{\"a\"}", "{a:1}")).noneMatch(object::matches);
        GbnfMatcher value = new GbnfMatcher(JsonSchemaGrammar.anyValue(JsonWhitespace.COMPACT));
        assertThat(List.of("{}", "[]", "\"x\"", "-1.5e3", "true", "null")).allMatch(value::matches);
        assertThat(List.of("", "01", "1.", ".5", "nul", "'x'")).noneMatch(value::matches);
    }

    @Test
    void ruleNamesAreSafeAndDistinct() {
        String text = grammar("""
                {"properties": {"a b": {"type": "string", "maxLength": 1}, "a-b": {"type": "string", "maxLength": 2},
                 "string": {"type": "string", "maxLength": 3}, "root": {"const": 1}}}""");
        assertThat(text).contains("a-b ::= ", "a-b-1 ::= ", "string-1 ::= ", "root-1 ::= ");
        assertThat(new GbnfMatcher(text).matches("{\"a b\":\"x\",\"a-b\":\"xy\",\"string\":\"xyz\",\"root\":1}"))
                .isTrue();
    }
}
