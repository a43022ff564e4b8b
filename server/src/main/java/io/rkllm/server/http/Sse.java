package io.rkllm.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Server-sent events as the APIs write them: {@code data:} lines, named events, comments as heartbeats. */
public final class Sse {
    public static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.UTF_8);
    public static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8);

    private Sse() {
    }

    /** An unnamed event carrying {@code node} (OpenAI's shape). */
    public static byte[] data(ObjectMapper mapper, ObjectNode node) {
        return ("data: " + json(mapper, node) + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    /** A named event carrying {@code node} (Anthropic's shape). */
    public static byte[] event(ObjectMapper mapper, String name, ObjectNode node) {
        return ("event: " + name + "\ndata: " + json(mapper, node) + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    private static String json(ObjectMapper mapper, ObjectNode node) {
        try {
            return mapper.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
