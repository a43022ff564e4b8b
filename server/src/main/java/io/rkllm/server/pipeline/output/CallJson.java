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
    /**
     * Stands for text a model has not written yet, in a block read before it closes ({@link StreamedCalls}): a lone
     * low surrogate, which no decoded output holds (bytes that are not UTF-8 become U+FFFD).
     */
    public static final String UNWRITTEN = "\uDFFF";
    /** An argument typed by text not written to its end: left out, with any after it, when its object is written. */
    private static final JsonNode UNSETTLED = JsonNodeFactory.instance.textNode(UNWRITTEN);
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

    /** Compact JSON text; an object with an {@link #typed unsettled} argument, as far as the one before it. */
    public static String write(JsonNode node) {
        if (node instanceof ObjectNode object && object.properties().stream().anyMatch(f -> f.getValue() == UNSETTLED)) {
            ObjectNode settled = newObject();
            for (var field : object.properties()) {
                if (field.getValue() == UNSETTLED) {
                    break;
                }
                settled.set(field.getKey(), field.getValue());
            }
            node = settled;
        }
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
            if (text.contains(UNWRITTEN)) {
                throw new Unsettled(); // JSON written as a string, unfinished: what it holds is known at its end
            }
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
        if (text.contains(UNWRITTEN)) {
            return UNSETTLED; // "tr" is text, "true" is not: such a value is known only when it ends
        }
        JsonNode parsed = readTree(text);
        return parsed != null ? parsed : JsonNodeFactory.instance.textNode(text);
    }

    /**
     * A value whose type depends on text not written yet (an argument typed by what it holds): the calls of a block
     * cannot be read before it ends. Thrown only where {@link #UNWRITTEN} stands in the text.
     */
    public static final class Unsettled extends RuntimeException {
        Unsettled() {
            super("a value not yet written to its end", null, false, false);
        }
    }
}
