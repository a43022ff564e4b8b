package io.rkllm.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;

/** Typed, null-tolerant access to the fields of a JSON object; a wrong type is a 400 naming the field. */
public final class FieldReader {
    private final ObjectNode node;

    public FieldReader(ObjectNode node) {
        this.node = node;
    }

    public Optional<JsonNode> raw(String name) {
        JsonNode value = node.get(name);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
    }

    public Optional<String> string(String name) {
        return raw(name).map(v -> {
            if (!v.isTextual()) {
                throw wrongType(name, "a string");
            }
            return v.asText();
        });
    }

    public Optional<Boolean> bool(String name) {
        return raw(name).map(v -> {
            if (!v.isBoolean()) {
                throw wrongType(name, "true or false");
            }
            return v.asBoolean();
        });
    }

    public Optional<Integer> integer(String name) {
        return raw(name).map(v -> {
            if (!v.isIntegralNumber() && !(v.isNumber() && v.asDouble() == Math.rint(v.asDouble()))) {
                throw wrongType(name, "an integer");
            }
            if (!v.canConvertToInt()) {
                throw ApiException.invalid(name, "'" + name + "' is out of range");
            }
            return v.asInt();
        });
    }

    public Optional<Long> longValue(String name) {
        return raw(name).map(v -> {
            if (!v.isIntegralNumber()) {
                throw wrongType(name, "an integer");
            }
            if (!v.canConvertToLong()) {
                throw ApiException.invalid(name, "'" + name + "' is out of range");
            }
            return v.asLong();
        });
    }

    public Optional<Double> number(String name) {
        return raw(name).map(v -> {
            if (!v.isNumber()) {
                throw wrongType(name, "a number");
            }
            return v.asDouble();
        });
    }

    public Optional<ArrayNode> array(String name) {
        return raw(name).map(v -> {
            if (!v.isArray()) {
                throw wrongType(name, "an array");
            }
            return (ArrayNode) v;
        });
    }

    /** An object field; any other type is the client's mistake, not a value to ignore. */
    public Optional<ObjectNode> object(String name) {
        return raw(name).map(v -> {
            if (!v.isObject()) {
                throw wrongType(name, "an object");
            }
            return (ObjectNode) v;
        });
    }

    private static ApiException wrongType(String name, String expected) {
        return ApiException.invalid(name, "'" + name + "' must be " + expected);
    }
}
