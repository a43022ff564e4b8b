package io.rkllm.server.webui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A connection to a browser's DevTools protocol (CDP) over the JDK's WebSocket client: commands with their
 * replies, and events handed to listeners, each tagged with the session (tab) it came from.
 */
final class DevTools implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REPLY_WITHIN = Duration.ofSeconds(60);

    /** One event: its method, params and the session it belongs to (null for the browser's own). */
    record Event(String method, JsonNode params, String sessionId) {
    }

    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final List<Consumer<Event>> listeners = new CopyOnWriteArrayList<>();

    private DevTools(WebSocket.Builder builder, URI uri) throws Exception {
        this.socket = builder.buildAsync(uri, new Listener()).get(30, TimeUnit.SECONDS);
    }

    static DevTools connect(URI uri) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        return new DevTools(client.newWebSocketBuilder(), uri);
    }

    void listen(Consumer<Event> listener) {
        listeners.add(listener);
    }

    /** Sends a command and waits for its result; a protocol error is an exception naming the command. */
    JsonNode send(String sessionId, String method, ObjectNode params) throws Exception {
        int id = ids.incrementAndGet();
        ObjectNode message = JSON.createObjectNode().put("id", id).put("method", method);
        message.set("params", params == null ? JSON.createObjectNode() : params);
        if (sessionId != null) {
            message.put("sessionId", sessionId);
        }
        CompletableFuture<JsonNode> reply = new CompletableFuture<>();
        pending.put(id, reply);
        synchronized (socket) {
            socket.sendText(message.toString(), true).get(30, TimeUnit.SECONDS);
        }
        JsonNode answer;
        try {
            answer = reply.get(REPLY_WITHIN.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IOException("no reply to " + method + " within " + REPLY_WITHIN.toSeconds() + " s");
        } catch (ExecutionException e) {
            throw new IOException(method + ": " + e.getCause().getMessage(), e.getCause());
        } finally {
            pending.remove(id);
        }
        if (answer.has("error")) {
            throw new IOException(method + " failed: " + answer.get("error"));
        }
        return answer.path("result");
    }

    @Override
    public void close() {
        socket.abort();
        pending.values().forEach(f -> f.completeExceptionally(new IOException("DevTools connection closed")));
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                String message = text.toString();
                text.setLength(0);
                dispatch(message);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            pending.values().forEach(f -> f.completeExceptionally(error));
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            pending.values().forEach(f -> f.completeExceptionally(new IOException("closed: " + reason)));
            return null;
        }

        private void dispatch(String message) {
            JsonNode node;
            try {
                node = JSON.readTree(message);
            } catch (IOException e) {
                return;
            }
            if (node.has("id")) {
                CompletableFuture<JsonNode> reply = pending.get(node.get("id").asInt());
                if (reply != null) {
                    reply.complete(node);
                }
            } else if (node.has("method")) {
                Event event = new Event(node.get("method").asText(), node.path("params"),
                        node.has("sessionId") ? node.get("sessionId").asText() : null);
                listeners.forEach(l -> l.accept(event));
            }
        }
    }
}
