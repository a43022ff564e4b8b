package io.rkllm.server.pipeline;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import java.util.List;
import java.util.Optional;

/**
 * A client's JSON Schema, compiled once per request and applied to the model's answer. Only the schema itself and
 * the library's own meta-schemas are read: a {@code $ref} to a URL or a file is never fetched (a server that
 * fetches what clients name is an SSRF hole).
 */
final class SchemaCheck {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(
            SpecificationVersion.DRAFT_2020_12, builder -> builder.schemaLoader(loader -> loader
                    .fetchRemoteResources(false)
                    .block(iri -> !iri.toString().startsWith("https://json-schema.org/")
                            && !iri.toString().startsWith("http://json-schema.org/"))));

    /** The meta-schema a client's schema is checked against first (a typo there would check nothing). */
    private static final Schema META = REGISTRY.getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema"));

    private final Schema schema;

    private SchemaCheck(Schema schema) {
        this.schema = schema;
    }

    /** @throws FailureException {@link Failure.InvalidRequest} when the schema is not a usable JSON Schema */
    static SchemaCheck of(String schemaJson, String param) {
        try {
            JsonNode node = JSON.readTree(schemaJson);
            List<Error> problems = META.validate(node);
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException(String.join("; ", problems.stream().limit(3)
                        .map(Error::getMessage).toList()));
            }
            Optional<String> references = SchemaReferences.problem(node);
            if (references.isPresent()) {
                throw new IllegalArgumentException(references.get());
            }
            Schema schema = REGISTRY.getSchema(node);
            schema.validate(JSON.createObjectNode());
            return new SchemaCheck(schema);
        } catch (JacksonException | RuntimeException e) {
            throw new FailureException(Failure.InvalidRequest.of(param, "the JSON Schema cannot be used: "
                    + e.getMessage()));
        } catch (StackOverflowError e) {
            // what SchemaReferences does not foresee: the validator's own recursion, never the server's 500
            throw new FailureException(Failure.InvalidRequest.of(param, "the JSON Schema cannot be used: it is"
                    + " nested or refers to itself too deeply to be checked"));
        }
    }

    /** The check of a schema a client may have written loosely (a tool's parameters), if it is usable. */
    static Optional<SchemaCheck> tryOf(String schemaJson) {
        try {
            return Optional.of(of(schemaJson, "tools"));
        } catch (FailureException e) {
            return Optional.empty();
        }
    }

    /** The first few violations of {@code value}, as a sentence; empty when it is valid. */
    Optional<String> violations(JsonNode value) {
        List<Error> errors;
        try {
            errors = schema.validate(value);
        } catch (RuntimeException e) {
            // a part of the schema the answer reached and the check at the start did not (a reference the
            // validator cannot follow): the answer cannot be shown to conform, which is what the client hears
            return Optional.of("the schema could not be applied to it: " + e.getMessage());
        } catch (StackOverflowError e) {
            return Optional.of("the schema could not be applied to it: it refers to itself too deeply");
        }
        if (errors.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(String.join("; ", errors.stream().limit(5).map(Error::getMessage).toList()));
    }
}
