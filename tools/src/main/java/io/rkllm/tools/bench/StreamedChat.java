package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.stream.Stream;

/**
 * One streamed chat turn as the benches send it (Open WebUI's way: SSE with usage at the end): the answer's text,
 * its usage chunk, when the request was sent, when the first and the last piece of text came
 * ({@link System#nanoTime()}), how many chunks carried text, and the response headers.
 */
record StreamedChat(String content, JsonNode usage, long sentNanos, long firstTokenNanos, long lastTokenNanos,
                    int textChunks, HttpHeaders headers) {
    private static final ObjectMapper JSON = new ObjectMapper();

    static StreamedChat send(HttpClient http, URI base, String model, ArrayNode messages)
            throws IOException, InterruptedException {
        return send(http, base, model, messages, java.util.OptionalInt.empty());
    }

    /** With {@code max_tokens} when given. */
    static StreamedChat send(HttpClient http, URI base, String model, ArrayNode messages,
                             java.util.OptionalInt maxTokens) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode().put("model", model);
        body.set("messages", messages.deepCopy());
        maxTokens.ifPresent(n -> body.put("max_tokens", n));
        return send(http, base, body);
    }

    /** Sends {@code body} (a chat completion request) streamed, with usage at the end. */
    static StreamedChat send(HttpClient http, URI base, ObjectNode chat)
            throws IOException, InterruptedException {
        ObjectNode body = chat.deepCopy().put("stream", true);
        body.putObject("stream_options").put("include_usage", true);
        long sent = System.nanoTime();
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        HttpResponse<Stream<String>> response = http.send(request, HttpResponse.BodyHandlers.ofLines());
        if (response.statusCode() != 200) {
            throw new IOException("chat request failed with " + response.statusCode() + ": "
                    + String.join("\n", response.body().toList()));
        }
        StringBuilder content = new StringBuilder();
        JsonNode usage = null;
        long first = 0;
        long last = 0;
        int chunks = 0;
        for (String line : (Iterable<String>) response.body()::iterator) {
            if (!line.startsWith("data: ") || line.equals("data: [DONE]")) {
                continue;
            }
            JsonNode chunk = JSON.readTree(line.substring(6));
            if (chunk.has("error")) {
                throw new IOException("stream failed: " + chunk.get("error"));
            }
            JsonNode delta = chunk.at("/choices/0/delta");
            String piece = delta.path("content").asText("");
            if (!piece.isEmpty() || !delta.path("reasoning_content").asText("").isEmpty()) {
                last = System.nanoTime();
                first = first == 0 ? last : first;
                chunks++;
            }
            content.append(piece);
            if (chunk.has("usage") && !chunk.get("usage").isNull()) {
                usage = chunk;
            }
        }
        if (usage == null) {
            throw new IOException("the stream carried no usage chunk");
        }
        return new StreamedChat(content.toString(), usage, sent, first, last, chunks, response.headers());
    }
}
