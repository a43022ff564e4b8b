package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One streamed chat completion with the time of every chunk that carried text ({@code content} or
 * {@code reasoning_content}), for rates measured while several answers decode at once. Any OpenAI-compatible server:
 * the usage comes from {@code stream_options.include_usage} (llama-server and this server send it).
 *
 * @param text         the answer (reasoning and content as they came)
 * @param sent         when the request was sent ({@link System#nanoTime()})
 * @param chunks       when each chunk with text came
 * @param promptTokens the usage's prompt tokens
 * @param tokens       the usage's completion tokens
 */
record TimedChat(String text, long sent, long[] chunks, int promptTokens, int tokens) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Sends one user message ({@code history} before it), greedy, at most {@code maxTokens}. */
    static TimedChat send(HttpClient http, URI base, String model, List<String> history, String message, int maxTokens)
            throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode().put("model", model).put("temperature", 0)
                .put("max_tokens", maxTokens).put("stream", true);
        body.putObject("stream_options").put("include_usage", true);
        var messages = body.putArray("messages");
        for (int i = 0; i < history.size(); i++) {
            messages.addObject().put("role", i % 2 == 0 ? "user" : "assistant").put("content", history.get(i));
        }
        messages.addObject().put("role", "user").put("content", message);
        long sent = System.nanoTime();
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        HttpResponse<Stream<String>> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofLines());
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("received no bytes")) {
                throw new IOException(base + ": " + e.getMessage(), e);
            }
            // a kept-alive connection the server had closed (llama-server's HTTP library closes some without a
            // word): nothing was answered, so the request is sent again, on a new connection
            sent = System.nanoTime();
            response = http.send(request, HttpResponse.BodyHandlers.ofLines());
        }
        if (response.statusCode() != 200) {
            throw new IOException(base + " answered " + response.statusCode() + ": "
                    + String.join("\n", response.body().toList()));
        }
        StringBuilder text = new StringBuilder();
        List<Long> times = new ArrayList<>();
        JsonNode usage = null;
        for (String line : (Iterable<String>) response.body()::iterator) {
            if (!line.startsWith("data: ") || line.equals("data: [DONE]")) {
                continue;
            }
            JsonNode chunk = JSON.readTree(line.substring(6));
            if (chunk.has("error")) {
                throw new IOException(base + ": the stream failed: " + chunk.get("error"));
            }
            JsonNode delta = chunk.at("/choices/0/delta");
            String piece = delta.path("reasoning_content").asText("") + delta.path("content").asText("");
            if (!piece.isEmpty()) {
                times.add(System.nanoTime());
                text.append(piece);
            }
            if (chunk.hasNonNull("usage")) {
                usage = chunk.get("usage");
            }
        }
        if (usage == null) {
            throw new IOException(base + ": the stream carried no usage (stream_options.include_usage)");
        }
        return new TimedChat(text.toString(), sent, times.stream().mapToLong(Long::longValue).toArray(),
                usage.path("prompt_tokens").asInt(), usage.path("completion_tokens").asInt());
    }

    /** Seconds from the request to the first text. */
    double firstTokenSeconds() {
        return chunks.length == 0 ? Double.NaN : (chunks[0] - sent) / 1e9;
    }

    /** Tokens after the first over the time from the first text to the last. */
    double decodeRate() {
        if (chunks.length < 2 || tokens < 2) {
            return Double.NaN;
        }
        return (tokens - 1) / ((chunks[chunks.length - 1] - chunks[0]) / 1e9);
    }

    /** The prompt's tokens over the time to the first text (queueing and a cached prefix included). */
    double prefillRate() {
        return promptTokens / firstTokenSeconds();
    }

    /** When the last text came. */
    long end() {
        return chunks.length == 0 ? sent : chunks[chunks.length - 1];
    }
}
