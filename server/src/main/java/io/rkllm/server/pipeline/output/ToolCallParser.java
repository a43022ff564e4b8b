package io.rkllm.server.pipeline.output;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * Parses the JSON inside a {@code <tool_call>} block: {@code {"name": "...", "arguments": {...}}}, where
 * {@code arguments} may also be a JSON string (or be called {@code parameters}, or be absent: {@code {}}).
 * Immutable and thread-safe; create once and share.
 */
public final class ToolCallParser {

    /** A parsed call: the function name and its arguments as a JSON string. */
    public record FunctionCall(String name, String argumentsJson) {
    }

    private final ObjectMapper mapper;
    private final ObjectReader reader;

    public ToolCallParser() {
        this.mapper = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                // keep numbers as the model wrote them (no double rounding, "1.10" stays "1.10")
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
                .build();
        this.reader = mapper.reader();
    }

    /**
     * The call in {@code block} (the text between the tags; surrounding whitespace allowed), or empty when it
     * is not one JSON object with a non-blank string {@code name}.
     */
    public Optional<FunctionCall> parse(String block) {
        JsonNode root = readTree(block);
        if (root == null || !root.isObject()) {
            return Optional.empty();
        }
        JsonNode name = root.get("name");
        if (name == null || !name.isTextual() || name.asText().isBlank()) {
            return Optional.empty();
        }
        JsonNode arguments = root.has("arguments") ? root.get("arguments") : root.get("parameters");
        return Optional.of(new FunctionCall(name.asText().strip(), argumentsJson(arguments)));
    }

    private String argumentsJson(JsonNode arguments) {
        if (arguments == null || arguments.isNull()) {
            return "{}";
        }
        if (arguments.isTextual()) {
            String text = arguments.asText();
            if (text.isBlank()) {
                return "{}";
            }
            JsonNode parsed = readTree(text);
            // a string that is not JSON is passed on as the model wrote it: the client reports it
            return parsed == null ? text : write(parsed);
        }
        return write(arguments);
    }

    private JsonNode readTree(String text) {
        if (text.isBlank()) {
            return null;
        }
        try {
            JsonNode node = reader.readTree(text);
            return node == null || node.isMissingNode() ? null : node;
        } catch (JacksonException e) {
            return null;
        }
    }

    private String write(JsonNode node) {
        try {
            return mapper.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e); // a tree just read always serializes
        }
    }
}
