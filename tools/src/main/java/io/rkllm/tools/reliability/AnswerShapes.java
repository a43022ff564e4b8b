package io.rkllm.tools.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The shapes an answer must have, API by API: each API's error body, and a complete stream (OpenAI's and the
 * Responses API's SSE, Ollama's NDJSON, Anthropic's named events). Each check says what is wrong, or null.
 */
final class AnswerShapes {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How the error of an answer that failed its JSON or tool check begins (the one error a good stream may end in). */
    static final String INVALID_OUTPUT_MESSAGE = "the model did not produce a valid answer";

    private AnswerShapes() {
    }

    /** Which API a path belongs to: its errors and streams have their own shapes. */
    enum Api {
        OPENAI, OLLAMA, ANTHROPIC, ANY;

        static Api of(String path) {
            String p = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
            if (p.equals("any")) {
                return ANY;
            }
            return p.startsWith("/api/") ? OLLAMA
                    : p.equals("/v1/messages") || p.startsWith("/v1/messages/") ? ANTHROPIC : OPENAI;
        }
    }

    /** Ollama's {@code {"error": "..."}}. */
    static String ollamaError(String body) {
        try {
            JsonNode node = JSON.readTree(body);
            return node.path("error").isTextual() ? null
                    : "an error body not in Ollama's shape: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return "an error body that is not JSON: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Anthropic's {@code {"type":"error","error":{"type","message"}}}. */
    static String anthropicError(String body) {
        try {
            JsonNode node = JSON.readTree(body);
            return node.path("type").asText().equals("error") && node.at("/error/type").isTextual()
                    && node.at("/error/message").isTextual() ? null
                    : "an error body not in Anthropic's shape: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return "an error body that is not JSON: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Ollama's stream: one JSON object a line, no error line, the last one {@code done: true}. */
    static String ndjson(String body) {
        List<String> lines = body.lines().filter(l -> !l.isBlank()).toList();
        if (lines.isEmpty()) {
            return "an empty NDJSON stream";
        }
        for (String line : lines) {
            try {
                JsonNode node = JSON.readTree(line);
                if (node.has("error") && node.path("error").asText().startsWith(INVALID_OUTPUT_MESSAGE)) {
                    return null;
                }
                if (node.has("error")) {
                    return "an error line in the stream: " + line;
                }
            } catch (IOException e) {
                return "an NDJSON line that is not JSON: " + line;
            }
        }
        try {
            return JSON.readTree(lines.getLast()).path("done").asBoolean() ? null
                    : "the NDJSON stream does not end with done: true";
        } catch (IOException e) {
            return "bad last line";
        }
    }

    /** Anthropic's stream: {@code event:} and {@code data:} lines, ending with message_stop, no error event. */
    static String anthropicSse(String body) {
        if (body.contains("event: error") && !body.contains(INVALID_OUTPUT_MESSAGE)) {
            return "an error event in the stream: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        }
        String trimmed = body.strip();
        return trimmed.contains("event: message_stop") && trimmed.endsWith("}") ? null
                : "the stream does not end with message_stop: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The Responses API's stream: named events whose data carries the same type and consecutive sequence numbers,
     * ending with response.completed or response.incomplete (or response.failed for a failed structured answer).
     */
    static String responsesSse(String body) {
        if (!body.endsWith("\n\n")) {
            return "the stream does not end with a blank line";
        }
        String last = null;
        int expected = 0;
        for (String event : body.substring(0, body.length() - 2).split("\n\n", -1)) {
            if (event.startsWith(":")) {
                continue;
            }
            String[] lines = event.split("\n");
            if (lines.length != 2 || !lines[0].startsWith("event: ") || !lines[1].startsWith("data: ")) {
                return "an SSE event that is not one event: and one data: line: "
                        + abbreviate(event.getBytes(StandardCharsets.UTF_8));
            }
            try {
                JsonNode node = JSON.readTree(lines[1].substring(6));
                last = lines[0].substring(7);
                if (!node.path("type").asText().equals(last) || node.path("sequence_number").asInt(-1) != expected++) {
                    return "an event whose type or sequence_number is wrong: " + lines[1];
                }
            } catch (IOException e) {
                return "an event whose data is not JSON: " + lines[1];
            }
        }
        if ("response.failed".equals(last) && body.contains("\"code\":\"invalid_output\"")) {
            return null;
        }
        return "response.completed".equals(last) || "response.incomplete".equals(last) ? null
                : "the stream does not end with response.completed: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
    }

    static String openAiError(String body) {
        try {
            JsonNode error = JSON.readTree(body).path("error");
            if (!error.isObject() || !error.path("message").isTextual() || !error.path("type").isTextual()
                    || !error.has("param") || !error.has("code")) {
                return "an error body not in the OpenAI shape: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
            }
            return null;
        } catch (IOException e) {
            return "an error body that is not JSON: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** A complete stream: only data lines and comments, every data line JSON or [DONE], [DONE] last, no error. */
    static String sse(String body) {
        if (!body.endsWith("\n\n")) {
            return "the stream does not end with a blank line";
        }
        List<String> data = new ArrayList<>();
        for (String event : body.substring(0, body.length() - 2).split("\n\n", -1)) {
            if (event.startsWith(":")) {
                continue;
            }
            if (!event.startsWith("data: ") || event.contains("\n")) {
                return "an SSE event that is not one data line: " + abbreviate(event.getBytes(StandardCharsets.UTF_8));
            }
            data.add(event.substring(6));
        }
        if (data.isEmpty() || !data.getLast().equals("[DONE]")) {
            String last = data.isEmpty() ? "" : data.getLast();
            if (last.contains("\"code\":\"invalid_output\"")) {
                return null;
            }
            return "the stream does not end with [DONE]" + (last.contains("\"error\"") ? " but with an error: " + last : "");
        }
        for (String d : data.subList(0, data.size() - 1)) {
            try {
                JsonNode node = JSON.readTree(d);
                if (node.has("error")) {
                    return "an error event in the stream: " + d;
                }
            } catch (IOException e) {
                return "an SSE data line that is not JSON: " + d;
            }
        }
        return null;
    }

    /** The first bytes of an answer, readable in a report: control bytes escaped. */
    static String abbreviate(byte[] bytes) {
        int n = Math.min(bytes.length, 300);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int b = bytes[i] & 0xff;
            if (b >= 0x20 && b < 0x7f) {
                s.append((char) b);
            } else if (b == '\n') {
                s.append("\\n");
            } else if (b == '\r') {
                s.append("\\r");
            } else {
                s.append(String.format("\\x%02x", b));
            }
        }
        if (bytes.length > n) {
            s.append("... (").append(bytes.length).append(" bytes)");
        }
        return s.toString();
    }
}
