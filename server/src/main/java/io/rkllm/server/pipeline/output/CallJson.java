package io.rkllm.server.pipeline.output;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * The JSON of tool calls, read and written one way for every format: numbers kept as the model wrote them
 * ({@code 1.10} stays {@code 1.10}), trailing text refused, arguments compact.
 */
public final class CallJson {
    static final JsonNode MISSING = MissingNode.getInstance();
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();
    private static final ObjectReader READER = MAPPER.reader();

    private CallJson() {
    }

    /** The JSON value {@code text} holds (whitespace around it allowed), or null when it holds none or more. */
    public static JsonNode readTree(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            JsonNode node = READER.readTree(text);
            return node == null || node.isMissingNode() ? null : node;
        } catch (JacksonException e) {
            return null;
        }
    }

    /** A JSON object's text, compact; empty when {@code text} is not one object. */
    public static Optional<String> object(String text) {
        JsonNode node = readTree(text);
        return node != null && node.isObject() ? Optional.of(write(node)) : Optional.empty();
    }

    /** Compact JSON text. */
    public static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e); // a tree built here always serializes
        }
    }

    /**
     * Arguments as a call carries them: an object as compact JSON; a string holding JSON, that JSON; a string that
     * is not JSON, as written (the client reports it); none or blank, {@code {}}.
     */
    public static String arguments(JsonNode arguments) {
        if (arguments == null || arguments.isNull() || arguments.isMissingNode()) {
            return "{}";
        }
        if (arguments.isTextual()) {
            String text = arguments.asText();
            if (text.isBlank()) {
                return "{}";
            }
            JsonNode parsed = readTree(text);
            return parsed == null ? text : write(parsed);
        }
        return write(arguments);
    }

    /** A new object to put a call's arguments in, in the order they were written. */
    public static ObjectNode newObject() {
        return JsonNodeFactory.instance.objectNode();
    }

    /**
     * An argument written as text, typed as its tool declares it: a {@code string} parameter keeps the text; any
     * other is read as JSON when it is JSON (a number, a list, {@code true}), else kept as text, as llama.cpp does.
     */
    public static JsonNode typed(String text, Optional<String> declaredType) {
        if (declaredType.filter("string"::equals).isPresent()) {
            return JsonNodeFactory.instance.textNode(text);
        }
        JsonNode parsed = readTree(text);
        return parsed != null ? parsed : JsonNodeFactory.instance.textNode(text);
    }
}
