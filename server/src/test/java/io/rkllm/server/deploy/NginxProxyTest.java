package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * packaging/nginx/rkllm-boards.conf, as shipped but for the boards' addresses and the listen port, in front
 * of two servers (child processes on the simulated runtime, as two boards would be): the model list through
 * the proxy; every request of a chat on the same server (Open WebUI's chat id header; without it, the
 * client's address); its KV cache reused from the second turn on; a stream passed on token by token (the
 * client leaves after its first tokens and the generation is aborted, which it could not be if nginx held
 * the answer back until its end); one server killed mid-conversation: the chat's next request goes to the
 * other and is answered from the whole conversation it carries, then stays there. Prints the cache reuse
 * (docs/scaling.md). Needs Debian's nginx: skipped without it (.ci/run installs it).
 */
class NginxProxyTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = "qwen2.5-0.5b-sim";

    @TempDir
    Path dir;
    private final List<ChildServer> servers = new ArrayList<>();
    private Process nginx;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private int proxyPort;

    @AfterEach
    void stop() throws InterruptedException {
        if (nginx != null) {
            nginx.destroy();
            nginx.waitFor(10, TimeUnit.SECONDS);
            nginx.destroyForcibly();
        }
        servers.forEach(ChildServer::destroyIfAlive);
    }

    static Optional<Path> nginxBinary() {
        List<String> dirs = new ArrayList<>(List.of("/usr/sbin", "/usr/local/sbin"));
        dirs.addAll(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        return dirs.stream().filter(d -> !d.isEmpty()).map(d -> Path.of(d, "nginx")).filter(Files::isExecutable)
                .findFirst();
    }

    /** One chat as Open WebUI keeps it: the id, the board it went to, the messages so far. */
    private static final class Chat {
        final String id;
        final ArrayNode messages = JSON.createArrayNode();
        String board;
        int lastPrompt;

        Chat(String id) {
            this.id = id;
            messages.addObject().put("role", "system").put("content", "You are a helpful assistant on an RK3588.");
        }
    }

    /** A chat answer through the proxy: its text, the board that gave it, prompt and cached tokens. */
    private record Answer(String content, String board, int promptTokens, int cachedTokens) {
    }

    @Test
    void chatsStayOnTheirBoardStreamsPassAndADeadBoardsChatsMoveToTheOther() throws Exception {
        Optional<Path> binary = nginxBinary();
        assumeTrue(binary.isPresent(), "nginx is not installed (apt-get install nginx; .ci/run installs it)");
        for (String name : List.of("a", "b")) {
            Path serverDir = Files.createDirectories(dir.resolve(name));
            servers.add(ChildServer.start(serverDir, System.getProperty("java.class.path"),
                    Map.of("RKLLM_SIM_TRACE", serverDir.resolve("trace.jsonl").toString()),
                    "--cache.slots", "2", "--logging.level", "warn"));
        }
        Map<String, Integer> boardIndex = new LinkedHashMap<>();
        for (ChildServer server : servers) {
            boardIndex.put("127.0.0.1:" + server.awaitPort(), boardIndex.size());
        }
        startNginx(binary.get(), List.copyOf(boardIndex.keySet()));

        HttpResponse<String> models = http.send(get("/v1/models", Optional.empty()), HttpResponse.BodyHandlers.ofString());
        assertThat(models.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(models.body()).findValuesAsText("id")).contains("qwen3-1.7b-sim", MODEL);

        // two chats per board: which board a chat id hashes to, asked with a request that costs nothing
        Map<Integer, List<Chat>> byBoard = new LinkedHashMap<>(Map.of(0, new ArrayList<>(), 1, new ArrayList<>()));
        for (int i = 0; byBoard.values().stream().anyMatch(l -> l.size() < 2); i++) {
            assertThat(i).as("40 chat ids all hash to one board").isLessThan(40);
            Chat chat = new Chat("chat-" + i);
            HttpResponse<String> r = http.send(get("/v1/models", Optional.of(chat.id)), HttpResponse.BodyHandlers.ofString());
            chat.board = lastBoard(r);
            List<Chat> list = byBoard.get(boardIndex.get(chat.board));
            if (list.size() < 2) {
                list.add(chat);
            }
        }
        List<Chat> chats = byBoard.values().stream().flatMap(List::stream).toList();

        // three turns of each, interleaved as several people's chats are
        int followUpPrompt = 0;
        int followUpCached = 0;
        for (int turn = 1; turn <= 3; turn++) {
            for (Chat chat : chats) {
                Answer answer = turn(chat, turn, Optional.of(chat.id));
                assertThat(answer.board()).as("%s turn %d", chat.id, turn).isEqualTo(chat.board);
                if (turn > 1) {
                    assertThat(answer.cachedTokens()).as("%s turn %d finds its whole earlier conversation cached",
                            chat.id, turn).isGreaterThanOrEqualTo(chat.lastPrompt);
                    followUpPrompt += answer.promptTokens();
                    followUpCached += answer.cachedTokens();
                }
                chat.lastPrompt = answer.promptTokens();
            }
        }
        System.out.printf("nginx, X-OpenWebUI-Chat-Id: %d chats on 2 servers, follow-up turns: %d of %d prompt"
                + " tokens from the KV cache (%.0f%%)%n", chats.size(), followUpCached, followUpPrompt,
                100.0 * followUpCached / followUpPrompt);

        // the same without the header: the client's address decides, so every chat goes to one board
        List<Chat> anonymous = List.of(new Chat("x1"), new Chat("x2"), new Chat("x3"), new Chat("x4"));
        String fallbackBoard = null;
        int anonymousPrompt = 0;
        int anonymousCached = 0;
        for (int turn = 1; turn <= 3; turn++) {
            for (Chat chat : anonymous) {
                Answer answer = turn(chat, turn, Optional.empty());
                fallbackBoard = fallbackBoard == null ? answer.board() : fallbackBoard;
                assertThat(answer.board()).as("without a chat id, by the client's address").isEqualTo(fallbackBoard);
                if (turn > 1) {
                    anonymousPrompt += answer.promptTokens();
                    anonymousCached += answer.cachedTokens();
                }
            }
        }
        System.out.printf("nginx, no chat id header: %d chats on 1 server (2 KV cache slots), follow-up turns: %d of"
                + " %d prompt tokens from the KV cache (%.0f%%)%n", anonymous.size(), anonymousCached, anonymousPrompt,
                100.0 * anonymousCached / anonymousPrompt);

        // a stream through the proxy, left by its client after the first tokens (Open WebUI's Stop)
        Chat streamed = chats.getFirst();
        ChildServer streamedServer = servers.get(boardIndex.get(streamed.board));
        Path streamedTrace = streamedServer.console().resolveSibling("trace.jsonl");
        long abortsBefore = runs(streamedTrace, "abort");
        String firstChunk = firstStreamedChunk(streamed.id);
        assertThat(firstChunk).contains("\"content\"");
        awaitRuns(streamedTrace, "abort", abortsBefore + 1);

        // the board of one chat dies in the middle of the conversation
        Chat moved = byBoard.get(1).getFirst();
        servers.get(1).process().destroyForcibly();
        assertThat(servers.get(1).process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        Answer after = turn(moved, 4, Optional.of(moved.id));
        String survivor = boardIndex.keySet().stream().filter(b -> boardIndex.get(b) == 0).findFirst().orElseThrow();
        assertThat(after.board()).as("the next request goes to the board still up").isEqualTo(survivor);
        // at most a beginning it shares with another chat (the system prompt) can be in a cache there
        assertThat(after.cachedTokens()).as("its conversation is not cached there").isLessThan(after.promptTokens() / 4);
        String firstQuestion = moved.messages.get(1).get("content").asText();
        assertThat(lastRunPrefill(dir.resolve("a/trace.jsonl"))).as("the whole conversation was prefilled")
                .contains(firstQuestion).contains(moved.messages.get(2).get("content").asText());
        moved.board = survivor;
        Answer next = turn(moved, 5, Optional.of(moved.id));
        assertThat(next.board()).isEqualTo(survivor);
        assertThat(next.cachedTokens()).as("and from then on cached there").isPositive();
    }

    /** Sends turn {@code n} of {@code chat} (the whole conversation, as Open WebUI does) and records the answer. */
    private Answer turn(Chat chat, int n, Optional<String> chatId) throws IOException, InterruptedException {
        String expected = "answer " + n + " in " + chat.id;
        chat.messages.addObject().put("role", "user").put("content", "Question " + n + " of " + chat.id
                + ", about the NPU's memory bandwidth and its clocks. [[say:" + expected + "]]");
        ObjectNode body = JSON.createObjectNode().put("model", MODEL);
        body.set("messages", chat.messages);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxyPort
                + "/v1/chat/completions")).timeout(Duration.ofSeconds(120)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        chatId.ifPresent(id -> request.header("X-OpenWebUI-Chat-Id", id));
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode json = JSON.readTree(response.body());
        String content = json.at("/choices/0/message/content").asText();
        assertThat(content).isEqualTo(expected);
        chat.messages.addObject().put("role", "assistant").put("content", content);
        return new Answer(content, lastBoard(response), json.at("/usage/prompt_tokens").asInt(),
                json.at("/usage/prompt_tokens_details/cached_tokens").asInt());
    }

    private HttpRequest get(String path, Optional<String> chatId) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxyPort + path))
                .timeout(Duration.ofSeconds(30)).GET();
        chatId.ifPresent(id -> b.header("X-OpenWebUI-Chat-Id", id));
        return b.build();
    }

    /** The board that answered: the last address nginx tried ("a, b" when the first failed). */
    private static String lastBoard(HttpResponse<?> response) {
        String tried = response.headers().firstValue("X-Rkllm-Board").orElseThrow();
        return tried.substring(tried.lastIndexOf(' ') + 1);
    }

    /** Streams a long answer through the proxy and hangs up after its first content chunk. */
    private String firstStreamedChunk(String chatId) throws IOException {
        byte[] body = ("{\"model\":\"" + MODEL + "\",\"stream\":true,\"max_tokens\":3000,\"messages\":[{\"role\":"
                + "\"user\",\"content\":\"[[tokens:3000]]\"}]}").getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", proxyPort), 10_000);
            socket.setSoTimeout(120_000); // an answer held back until its end (90 s) fails below, not here
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "X-OpenWebUI-Chat-Id: " + chatId + "\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("data: {") && line.contains("\"content\":\"")) {
                    return line;
                }
            }
            throw new AssertionError("the stream ended without content");
        }
    }

    /** Runs of the simulated runtime in {@code trace} that ended with {@code result}. */
    private static long runs(Path trace, String result) throws IOException {
        if (!Files.exists(trace)) {
            return 0;
        }
        long n = 0;
        for (String line : Files.readAllLines(trace)) {
            JsonNode call = JSON.readTree(line);
            if (call.path("call").asText().equals("run") && call.path("result").asText().equals(result)) {
                n++;
            }
        }
        return n;
    }

    /** Waits (60 s at most) for the trace to count {@code count} runs that ended with {@code result}. */
    private static void awaitRuns(Path trace, String result, long count) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (runs(trace, result) < count) {
            assertThat(System.nanoTime()).as("no run ended with %s in %s", result, trace).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** The text the last run in {@code trace} prefilled. */
    private static String lastRunPrefill(Path trace) throws IOException {
        String last = null;
        for (String line : Files.readAllLines(trace)) {
            JsonNode call = JSON.readTree(line);
            if (call.path("call").asText().equals("run")) {
                last = call.path("prefilled_text").asText();
            }
        }
        return last;
    }

    /** The shipped configuration with the two servers as its boards, under an nginx of its own. */
    private void startNginx(Path binary, List<String> boards) throws IOException, InterruptedException {
        Path prefix = Files.createDirectories(dir.resolve("nginx"));
        Files.createDirectories(prefix.resolve("tmp"));
        try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            proxyPort = probe.getLocalPort();
        }
        String site = Files.readString(Repo.file("packaging/nginx/rkllm-boards.conf"));
        Matcher servers = Pattern.compile("(?m)^( *)server 192\\.168\\.1\\.5[12]:8080 (.*)$").matcher(site);
        StringBuilder replaced = new StringBuilder();
        int i = 0;
        while (servers.find()) {
            servers.appendReplacement(replaced, Matcher.quoteReplacement(servers.group(1) + "server " + boards.get(i++)
                    + " " + servers.group(2)));
        }
        servers.appendTail(replaced);
        assertThat(i).as("the shipped file's two example boards").isEqualTo(2);
        assertThat(replaced.toString()).contains("    listen 8080;");
        Files.writeString(prefix.resolve("rkllm-boards.conf"), replaced.toString()
                .replace("    listen 8080;", "    listen 127.0.0.1:" + proxyPort + ";"));
        String tmp = prefix.resolve("tmp").toString();
        Files.writeString(prefix.resolve("nginx.conf"), """
                daemon off;
                master_process off;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log info;
                events {}
                http {
                    access_log %1$s/access.log;
                    client_body_temp_path %2$s/body;
                    proxy_temp_path %2$s/proxy;
                    fastcgi_temp_path %2$s/fastcgi;
                    uwsgi_temp_path %2$s/uwsgi;
                    scgi_temp_path %2$s/scgi;
                    include %1$s/rkllm-boards.conf;
                }
                """.formatted(prefix, tmp));
        nginx = new ProcessBuilder(binary.toString(), "-p", prefix + "/", "-c", prefix.resolve("nginx.conf").toString(),
                "-e", prefix.resolve("error.log").toString()).redirectErrorStream(true)
                .redirectOutput(prefix.resolve("console.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", proxyPort), 1000);
                return;
            } catch (IOException notYet) {
                assertThat(nginx.isAlive()).as("nginx: %s", Files.exists(prefix.resolve("error.log"))
                        ? Files.readString(prefix.resolve("error.log")) : "").isTrue();
                assertThat(System.nanoTime()).as("nginx listening").isLessThan(deadline);
                Thread.sleep(20);
            }
        }
    }
}
