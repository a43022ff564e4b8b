package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Open WebUI's document upload: every chunk a request of its own, all sent at once. With the default
 * configuration none of 200 may fail (no 429, no 503), and a chat that arrives meanwhile goes first on the NPU.
 */
class EmbeddingFloodTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CHUNKS = 200;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private static String chunk(int i) {
        return "Chunk " + i + " of the uploaded manual: the board boots from eMMC, then the NPU driver loads.";
    }

    private List<CompletableFuture<HttpResponse<String>>> flood(TestServer server) {
        List<CompletableFuture<HttpResponse<String>>> replies = new ArrayList<>();
        for (int i = 0; i < CHUNKS; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(server.url("/v1/embeddings")))
                    .timeout(Duration.ofSeconds(120)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"e\",\"input\":["
                            + ChatCompletionsTest.quote(chunk(i)) + "]}")).build();
            replies.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        return replies;
    }

    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every reply is a 200 with the vector its own text gets when embedded in one batch afterwards. */
    private static void assertAllAnswered(TestServer server, List<CompletableFuture<HttpResponse<String>>> replies)
            throws Exception {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < CHUNKS; i++) {
            texts.add(ChatCompletionsTest.quote(chunk(i)));
        }
        JsonNode batch = server.postForReply("/v1/embeddings", "{\"model\":\"e\",\"input\":[" + String.join(",", texts)
                + "]}").json().get("data");
        for (int i = 0; i < CHUNKS; i++) {
            HttpResponse<String> reply = replies.get(i).get();
            assertThat(reply.statusCode()).as("chunk %d: %s", i, reply.body()).isEqualTo(200);
            assertThat(json(reply.body()).at("/data/0/embedding")).as("chunk %d", i)
                    .isEqualTo(batch.get(i).get("embedding"));
        }
    }

    private static int queued(TestServer server, String model) throws Exception {
        for (JsonNode m : ClientDisconnectTest.health(server).get("loaded_models")) {
            if (m.get("id").asText().equals(model)) {
                return m.get("queued").asInt();
            }
        }
        return -1;
    }

    @Test
    void twoHundredChunksSentAtOnceAreAllAnsweredWithTheDefaultConfiguration() throws Exception {
        Map<String, String> embedding = new HashMap<>(EmbeddingsApiTest.EMBEDDING);
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                        "decode_tps", "50", "prefill_tps", "100000")).model("e", embedding)
                .sidecar("e", EmbeddingsApiTest.SIDECAR).start();
             RawHttp chat = QueueTest.running(server, "[[tokens:5000]]")) {
            // the chat holds the NPU: the whole flood waits, far beyond queue.max_waiting (16, the chats' queue)
            List<CompletableFuture<HttpResponse<String>>> replies = flood(server);
            Poll.until("the flood to be queued", Duration.ofSeconds(30), () -> queued(server, "e"),
                    q -> q == CHUNKS - 1);
            assertThat(replies).noneMatch(CompletableFuture::isDone);
            chat.close();
            assertAllAnswered(server, replies);
            assertThat(server.runs("e")).hasSize(2 * CHUNKS);
        }
    }

    @Test
    void aChatDuringTheFloodGoesFirst() throws Exception {
        // both models write one trace: its order is the order in which runs ended on the NPU
        Path trace = dir.resolve("npu.trace.jsonl");
        Map<String, String> embedding = new LinkedHashMap<>(EmbeddingsApiTest.EMBEDDING);
        embedding.putAll(Map.of("time_scale", "1", "init_ms", "0", "run_overhead_ms", "5", "prefill_tps", "100000",
                "trace", trace.toString()));
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                        "decode_tps", "100", "prefill_tps", "100000", "trace", trace.toString()))
                .model("e", embedding).sidecar("e", EmbeddingsApiTest.SIDECAR).start()) {
            server.postForReply("/v1/chat/completions", QueueTest.chat("[[say:warm]]", false));
            List<CompletableFuture<HttpResponse<String>>> replies = flood(server);
            Poll.until("the flood to be under way", Duration.ofSeconds(60), () -> runs(trace, "e"), n -> n >= 3);

            int beforeFirstToken;
            try (RawHttp chat = QueueTest.running(server, "[[tokens:40]]")) {
                // the chat's run is on the NPU: no embedding run may end until it has ended
                beforeFirstToken = runs(trace, "e");
                assertThat(chat.readUntil("[DONE]", 1)).isTrue();
            }
            assertAllAnswered(server, replies);

            List<String> order = order(trace);
            int chatRun = order.lastIndexOf("m");
            long embeddingsBeforeChat = order.subList(0, chatRun).stream().filter("e"::equals).count();
            assertThat(embeddingsBeforeChat).as("embedding runs that ended before the chat's").isEqualTo(
                    beforeFirstToken);
            assertThat(order.subList(chatRun, order.size())).as("the flood went on after the chat").contains("e");
        }
    }

    /**
     * A machine too loaded to run the server's acceptor for a while: the kernel must hold the whole flood's
     * connections until it runs. With a listen queue shorter than the flood (Jetty's default, 50) it drops the
     * handshakes beyond it: a connection waits for its SYN's retransmission, or, when the dropped packet was the ACK
     * completing it, gets reset after its client has sent the request (aChatDuringTheFloodGoesFirst failed so on a
     * loaded machine: "HTTP/1.1 header parser received no bytes", Connection reset).
     */
    @Test
    void twoHundredConnectionsAtOnceWaitInTheListenQueueWhileTheServerCannotAcceptThem() throws Exception {
        try (TestServer server = TestServer.in(dir).model("e", EmbeddingsApiTest.EMBEDDING)
                .sidecar("e", EmbeddingsApiTest.SIDECAR).start()) {
            assumeTrue(somaxconn() >= CHUNKS, "net.core.somaxconn caps every listen queue below " + CHUNKS);
            server.app().http().accepting(false);
            List<SocketChannel> connections = new ArrayList<>();
            try {
                for (int i = 0; i < CHUNKS; i++) {
                    SocketChannel connection = SocketChannel.open();
                    connections.add(connection);
                    connection.configureBlocking(false);
                    connection.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
                }
                // the kernel completes each handshake at once, without the server: none waits for a retransmission
                Poll.until("the handshakes to complete", Duration.ofSeconds(10), () -> {
                    int connected = 0;
                    for (SocketChannel connection : connections) {
                        connected += connection.finishConnect() ? 1 : 0;
                    }
                    return connected;
                }, n -> n == CHUNKS);
                for (int i = 0; i < CHUNKS; i++) {
                    byte[] body = ("{\"model\":\"e\",\"input\":[" + ChatCompletionsTest.quote(chunk(i)) + "]}")
                            .getBytes(StandardCharsets.UTF_8);
                    ByteBuffer request = ByteBuffer.allocate(body.length + 200);
                    request.put(("POST /v1/embeddings HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                            + "\r\nConnection: close\r\nContent-Length: " + body.length + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII)).put(body).flip();
                    SocketChannel connection = connections.get(i);
                    connection.configureBlocking(true);
                    while (request.hasRemaining()) {
                        connection.write(request);
                    }
                }
                server.app().http().accepting(true);
                for (int i = 0; i < CHUNKS; i++) {
                    Socket socket = connections.get(i).socket();
                    socket.setSoTimeout(60_000);
                    String reply = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertThat(reply).as("chunk %d", i).startsWith("HTTP/1.1 200 ");
                    assertThat(json(reply.substring(reply.indexOf("\r\n\r\n") + 4)).at("/data/0/embedding").size())
                            .as("chunk %d", i).isEqualTo(16);
                }
            } finally {
                for (SocketChannel connection : connections) {
                    connection.close();
                }
            }
        }
    }

    private static int somaxconn() throws IOException {
        Path limit = Path.of("/proc/sys/net/core/somaxconn");
        // (Files.readString reads procfs files of size 0 short: "4" of "4096")
        return Files.exists(limit) ? Integer.parseInt(Files.readAllLines(limit).getFirst().strip())
                : Integer.MAX_VALUE;
    }

    @Test
    void aClientThatLeavesTakesItsRequestOutOfTheQueue() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                        "decode_tps", "50", "prefill_tps", "100000")).model("e", EmbeddingsApiTest.EMBEDDING)
                .sidecar("e", EmbeddingsApiTest.SIDECAR).start();
             RawHttp chat = QueueTest.running(server, "[[tokens:5000]]")) {
            String body = EmbeddingsApiTest.body("\"left behind\"", "");
            try (RawHttp waiting = RawHttp.post(server.port(), "/v1/embeddings", body)) {
                // the first is taken by the worker and waits for the chat's turn; the second waits in the queue
                Poll.until("the first request to be taken", Duration.ofSeconds(30), () -> queued(server, "e"),
                        q -> q == 0);
                try (RawHttp queued = RawHttp.post(server.port(), "/v1/embeddings", body)) {
                    Poll.until("the second request to be queued", Duration.ofSeconds(30), () -> queued(server, "e"),
                            q -> q == 1);
                }
                Poll.until("the request whose client left to leave the queue", Duration.ofSeconds(30),
                        () -> queued(server, "e"), q -> q == 0);
            }
            Poll.until("the taken request to be given up", Duration.ofSeconds(30),
                    () -> ClientDisconnectTest.health(server).at("/loaded_models/1/busy").asBoolean(), busy -> !busy);
            chat.close();
            assertThat(server.postForReply("/v1/embeddings", EmbeddingsApiTest.body("\"still here\"", "")).status())
                    .isEqualTo(200);
            assertThat(server.runs("e")).hasSize(1);
            assertThat(server.runs("e").getFirst().get("prefilled_text").asText()).startsWith("still here");
        }
    }

    @Test
    void aRequestThatWaitsLongerThanTheWaitTimeoutGets503() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                        "decode_tps", "50", "prefill_tps", "100000")).model("e", EmbeddingsApiTest.EMBEDDING)
                .sidecar("e", EmbeddingsApiTest.SIDECAR).set("embeddings.wait_timeout", "300ms").start();
             RawHttp chat = QueueTest.running(server, "[[tokens:5000]]")) {
            // the first is taken by the worker (it waits for the chat); the second waits in the queue
            CompletableFuture<TestServer.Reply> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.postForReply("/v1/embeddings", EmbeddingsApiTest.body("\"first\"", ""));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            Poll.until("the first request to be taken", Duration.ofSeconds(30),
                    () -> ClientDisconnectTest.health(server).at("/loaded_models/1/busy").asBoolean(), busy -> busy);
            TestServer.Reply late = server.postForReply("/v1/embeddings", EmbeddingsApiTest.body("\"late\"", ""));
            ChatCompletionsTest.assertError(late, 503, "queue_timeout");
            assertThat(late.header("Retry-After")).isNotNull();
            chat.close();
            assertThat(first.get().status()).isEqualTo(200);
            assertThat(server.runs("e")).extracting(r -> r.get("prefilled_text").asText())
                    .containsExactly("first<|endoftext|>");
        }
    }

    /** The model of every run in the shared trace, in the order the runs ended. */
    private static List<String> order(Path trace) throws IOException {
        Map<Integer, String> handles = new HashMap<>();
        List<String> order = new ArrayList<>();
        for (String line : Files.readAllLines(trace)) {
            JsonNode node = JSON.readTree(line);
            int handle = node.get("handle").asInt();
            switch (node.get("call").asText()) {
                case "init" -> handles.put(handle, node.get("model").asText());
                case "run" -> order.add(handles.get(handle));
                default -> {
                }
            }
        }
        return order;
    }

    private static int runs(Path trace, String model) throws IOException {
        return (int) order(trace).stream().filter(model::equals).count();
    }
}
