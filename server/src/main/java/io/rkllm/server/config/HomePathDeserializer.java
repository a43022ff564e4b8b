package io.rkllm.server.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import java.io.IOException;
import java.nio.file.Path;

/** Reads paths, expanding a leading {@code ~} to the user's home directory. */
final class HomePathDeserializer extends StdScalarDeserializer<Path> {
    private final Path home;

    HomePathDeserializer(Path home) {
        super(Path.class);
        this.home = home;
    }

    @Override
    public Path deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        String text = parser.getValueAsString();
        if (text == null || text.isBlank()) {
            return (Path) context.handleWeirdStringValue(Path.class, text == null ? "" : text, "empty path");
        }
        return expand(text.trim(), home);
    }

    static Path expand(String text, Path home) {
        if (text.equals("~")) {
            return home;
        }
        if (text.startsWith("~/")) {
            return home.resolve(text.substring(2));
        }
        return Path.of(text);
    }
}
