package io.rkllm.llama.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The schemas the grammar tests generate for ({@code schemas.json} beside this class: every construct the
 * converter covers), and their check: Jackson reads an answer, the validator the server uses (json-schema-validator,
 * 2020-12 by default, nothing fetched) checks it, with format assertions on, so that {@code date} or {@code uuid}
 * strings are checked too. "open" schemas let a model write without end (a string without maxLength).
 */
public final class SchemaCatalogue {
    public static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(
            SpecificationVersion.DRAFT_2020_12, builder -> builder
                    .schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build())
                    .schemaLoader(loader -> loader.fetchRemoteResources(false)));

    /** One schema: its name, itself as plain Java values (what the converter takes), and whether it is open. */
    public record Entry(String name, Map<String, Object> schema, boolean open, Schema validator) {
        /** The validator's complaints about {@code text}, or a parse error; empty when it is valid JSON for it. */
        public List<String> problems(String text) {
            JsonNode value;
            try {
                value = JSON.readTree(text);
            } catch (IOException e) {
                return List.of("not JSON: " + e.getMessage());
            }
            if (value == null || value.isMissingNode()) {
                return List.of("not JSON: nothing");
            }
            return validator.validate(value).stream().map(Error::getMessage).toList();
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private SchemaCatalogue() {
    }

    @SuppressWarnings("unchecked")
    public static List<Entry> all() {
        try (InputStream in = SchemaCatalogue.class.getResourceAsStream("schemas.json")) {
            List<Entry> out = new ArrayList<>();
            for (JsonNode node : JSON.readTree(in)) {
                out.add(new Entry(node.get("name").asText(), JSON.convertValue(node.get("schema"), Map.class),
                        node.path("open").asBoolean(false), REGISTRY.getSchema(node.get("schema"))));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The bounded ones: a model can always finish them. */
    public static List<Entry> bounded() {
        return all().stream().filter(e -> !e.open()).toList();
    }

    /** A schema written as JSON text, as plain Java values. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> schema(String json) {
        try {
            return JSON.readValue(json, Map.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The validator's complaints about {@code text} for {@code schemaJson}. */
    public static List<String> problems(String schemaJson, String text) {
        try {
            return new Entry("", schema(schemaJson), false, REGISTRY.getSchema(JSON.readTree(schemaJson)))
                    .problems(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
