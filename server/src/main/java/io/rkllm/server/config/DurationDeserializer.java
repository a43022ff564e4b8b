package io.rkllm.server.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import java.io.IOException;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads durations as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, a bare number of seconds, or ISO-8601. */
final class DurationDeserializer extends StdScalarDeserializer<Duration> {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

    DurationDeserializer() {
        super(Duration.class);
    }

    @Override
    public Duration deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        String text = parser.getValueAsString();
        Duration parsed = text == null ? null : parse(text);
        if (parsed == null) {
            return (Duration) context.handleWeirdStringValue(Duration.class, text == null ? "" : text,
                    "not a duration");
        }
        return parsed;
    }

    static Duration parse(String text) {
        String value = text.trim();
        if (value.toUpperCase().startsWith("P")) {
            try {
                return Duration.parse(value);
            } catch (RuntimeException e) {
                return null;
            }
        }
        Matcher m = SIMPLE.matcher(value);
        if (!m.matches()) {
            return null;
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double millis = switch (unit) {
            case "ms" -> amount;
            case "m" -> amount * 60_000;
            case "h" -> amount * 3_600_000;
            default -> amount * 1000;
        };
        return Duration.ofMillis(Math.round(millis));
    }
}
