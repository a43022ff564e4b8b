package io.rkllm.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.server.pipeline.request.LogitBiasEntry;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * OpenAI's {@code logit_bias}: an object from token ids (as strings) to a number from -100 to 100 added to the
 * token's logit. Taken as llama-server takes it too: {@code false} for a bias bans the token, a key that is not a
 * number is a text whose every token is meant, and an array of {@code [token or text, bias]} pairs is the same
 * thing as the object. Token ids are checked against the model's vocabulary when the run starts.
 */
public final class LogitBiasField {
    static final String NAME = "logit_bias";
    /** More entries than any use of it needs (a ban list), few enough to check and copy at once. */
    static final int MAX_ENTRIES = 1024;
    static final double MAX_BIAS = 100;
    /** A text stands for a word or a phrase; a longer one is a mistake, and each is tokenized before the run. */
    static final int MAX_TEXT = 256;
    private static final Pattern INTEGER = Pattern.compile("-?[0-9]+");

    private LogitBiasField() {
    }

    public static List<LogitBiasEntry> of(FieldReader f) {
        Optional<JsonNode> node = f.raw(NAME);
        if (node.isEmpty()) {
            return List.of();
        }
        List<LogitBiasEntry> entries = new ArrayList<>();
        JsonNode n = node.get();
        if (n.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                entries.add(entry(e.getKey(), e.getValue()));
                limit(entries);
            }
        } else if (n.isArray()) {
            for (JsonNode pair : n) {
                if (!pair.isArray() || pair.size() != 2
                        || !(pair.get(0).isTextual() || pair.get(0).isIntegralNumber())) {
                    throw ApiException.invalid(NAME, "each item of a 'logit_bias' array must be a pair [token id or"
                            + " text, bias]");
                }
                // llama-server's pairs: a number is a token id, a string always a text ("42" is the text 42)
                entries.add(pair.get(0).isTextual() ? text(pair.get(0).asText(), pair.get(1))
                        : entry(pair.get(0).asText(), pair.get(1)));
                limit(entries);
            }
        } else {
            throw ApiException.invalid(NAME, "'logit_bias' must be an object mapping token ids to biases from -100"
                    + " to 100");
        }
        return List.copyOf(entries);
    }

    private static LogitBiasEntry entry(String key, JsonNode value) {
        if (!INTEGER.matcher(key).matches()) {
            return text(key, value);
        }
        double bias = bias(key, value);
        int token;
        try {
            token = Integer.parseInt(key);
        } catch (NumberFormatException e) {
            token = -1;
        }
        if (token < 0) {
            throw ApiException.invalid(NAME, "'logit_bias' key " + key + " is not a token id: ids go from 0 to the"
                    + " model's vocabulary size less one");
        }
        return new LogitBiasEntry(OptionalInt.of(token), "", bias);
    }

    private static LogitBiasEntry text(String key, JsonNode value) {
        double bias = bias(key, value);
        if (key.isEmpty()) {
            throw ApiException.invalid(NAME, "'logit_bias' keys must be token ids (or texts), not empty");
        }
        if (key.length() > MAX_TEXT) {
            throw ApiException.invalid(NAME, "a 'logit_bias' text may hold at most " + MAX_TEXT + " characters");
        }
        return new LogitBiasEntry(OptionalInt.empty(), key, bias);
    }

    private static double bias(String key, JsonNode value) {
        if (value.isBoolean() && !value.booleanValue()) {
            return Double.NEGATIVE_INFINITY;
        }
        if (!value.isNumber() || !(Math.abs(value.doubleValue()) <= MAX_BIAS)) {
            throw ApiException.invalid(NAME, "'logit_bias' of " + key + " must be a number from -100 to 100 (or"
                    + " false to ban the token)");
        }
        return value.doubleValue();
    }

    private static void limit(List<LogitBiasEntry> entries) {
        if (entries.size() > MAX_ENTRIES) {
            throw ApiException.invalid(NAME, "'logit_bias' may hold at most " + MAX_ENTRIES + " entries");
        }
    }
}
