package io.rkllm.tools.archive;

import io.rkllm.server.app.ServerApp;
import io.rkllm.server.app.Simulation;
import io.rkllm.server.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code rkllm-server cds-archive}: one request of each kind the service answers, sent to a server
 * running on the simulated runtime. Run with the systemd unit's JVM options
 * ({@code -XX:SharedArchiveFile=... -XX:+AutoCreateSharedArchive}), the JVM then writes the
 * class-data-sharing archive as this command exits, holding the classes the service loads: the
 * package does it at installation, so that the service's first start is as fast and as small as the
 * later ones (docs/performance.md, "Footprint").
 *
 * <p>Every class in the archive costs resident memory at every start, used or not, so it holds only
 * what a service answering requests loads: the requests go over a plain {@link SocketChannel}, the
 * class Jetty itself uses, and {@code GET /metrics} is left out (its first scrape loads the JDK's
 * management classes, about 220, which a service nobody scrapes never needs).
 */
public final class ArchiveTraining {
    static final String MODEL = "qwen3-1.7b-sim";

    /** A request and the status it must get. */
    record Exchange(String method, String path, String body, int status) {
    }

    private static final String CHAT = "{\"model\":\"" + MODEL + "\",\"max_tokens\":8,"
            + "\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"Hello\"}]";

    /** Open WebUI's web search: its RAG template around two retrieved pages (JSON-escaped). */
    private static final String WEB_SEARCH = "### Task:\\nRespond to the user query using the provided context,"
            + " incorporating inline citations in the format [id] **only when the <source> tag includes an explicit"
            + " id attribute** (e.g., <source id=\\\"1\\\">).\\n\\n### Guidelines:\\n- If you don't know the answer,"
            + " clearly state that.\\n\\n<context>\\n<source id=\\\"1\\\" name=\\\"https://example.org/a\\\">Home | News"
            + " | Contact\\nThe RK3588 has a 6 TOPS NPU with three cores. It runs models converted with the RKLLM"
            + " toolkit.\\nAccept cookies</source>\\n<source id=\\\"2\\\" name=\\\"https://example.org/b\\\">The Orange Pi 5"
            + " Plus has up to 32 GB of memory.\\nShare on Facebook</source>\\n</context>\\n\\n<user_query>\\nHow fast"
            + " is the RK3588's NPU?\\n</user_query>";

    /** What Open WebUI, curl, the SDKs, Ollama and Anthropic clients send, and the errors they get. */
    static final List<Exchange> EXCHANGES = List.of(
            new Exchange("GET", "/health", null, 200),
            new Exchange("GET", "/v1/models", null, 200),
            new Exchange("POST", "/v1/chat/completions", CHAT + ",\"stream\":true,"
                    + "\"stream_options\":{\"include_usage\":true}}", 200),
            new Exchange("POST", "/v1/chat/completions", CHAT + "}", 200),
            new Exchange("POST", "/v1/chat/completions", CHAT + ",\"stream\":true,\"tools\":[{\"type\":\"function\","
                    + "\"function\":{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\"}}}]}", 200),
            new Exchange("POST", "/v1/chat/completions", "{\"model\":\"" + MODEL + "\",\"max_tokens\":8,"
                    + "\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"" + WEB_SEARCH + "\"}]}", 200),
            new Exchange("POST", "/v1/completions", "{\"model\":\"" + MODEL + "\",\"prompt\":\"Once\","
                    + "\"max_tokens\":4}", 200),
            new Exchange("GET", "/api/version", null, 200),
            new Exchange("GET", "/api/tags", null, 200),
            new Exchange("GET", "/api/ps", null, 200),
            new Exchange("POST", "/api/show", "{\"model\":\"" + MODEL + "\"}", 200),
            new Exchange("POST", "/api/chat", "{\"model\":\"" + MODEL + "\",\"options\":{\"num_predict\":8},"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}", 200),
            new Exchange("POST", "/api/generate", "{\"model\":\"" + MODEL + "\",\"prompt\":\"Once\",\"stream\":false,"
                    + "\"options\":{\"num_predict\":4}}", 200),
            new Exchange("POST", "/v1/messages", "{\"model\":\"" + MODEL + "\",\"max_tokens\":8,\"stream\":true,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}", 200),
            new Exchange("POST", "/v1/chat/completions", "{\"model\":", 400),
            new Exchange("POST", "/v1/chat/completions", "{\"model\":\"no-such-model\",\"messages\":[]}", 400),
            new Exchange("GET", "/no-such-route", null, 404));

    private ArchiveTraining() {
    }

    /**
     * Serves on the simulated runtime with the built-in defaults, sends every exchange, stops; true when
     * every answer was as expected. Neither the configuration file nor the environment is read: API keys
     * there would answer every request with a 401, and the archive would miss the classes that serve them.
     */
    public static boolean command(ConfigLoader loader, Map<String, String> environment, PrintStream out, PrintStream err) {
        ConfigLoader.Loaded loaded = loader.load(Optional.empty(), Map.of(),
                Map.of("runtime.simulate", "true", "server.host", "127.0.0.1", "server.port", "0"));
        Simulation simulation = Simulation.inTempDirectory();
        ServerApp app = ServerApp.simulated(loaded.config(), simulation, simulation.models(), environment);
        try {
            List<String> unexpected = run(app.port());
            unexpected.forEach(u -> err.println("rkllm-server cds-archive: " + u));
            out.println("cds-archive: " + (EXCHANGES.size() - unexpected.size()) + " of " + EXCHANGES.size()
                    + " requests answered as expected");
            return unexpected.isEmpty();
        } catch (IOException e) {
            err.println("rkllm-server cds-archive: " + e.getMessage());
            return false;
        } finally {
            app.stop(Duration.ofSeconds(5));
            simulation.close();
        }
    }

    /** Sends every exchange to the server on {@code port} (loopback); returns what went other than expected. */
    static List<String> run(int port) throws IOException {
        List<String> unexpected = new ArrayList<>();
        for (Exchange e : EXCHANGES) {
            int status = send(port, e);
            if (status != e.status()) {
                unexpected.add(e.method() + " " + e.path() + ": " + status + " instead of " + e.status());
            }
        }
        return unexpected;
    }

    /** One request on its own connection; returns the answer's status after reading all of it. */
    static int send(int port, Exchange e) throws IOException {
        byte[] body = e.body() == null ? new byte[0] : e.body().getBytes(StandardCharsets.UTF_8);
        String head = e.method() + " " + e.path() + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n"
                + (e.body() == null ? "" : "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n")
                + "\r\n";
        try (SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            channel.write(ByteBuffer.wrap(head.getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer payload = ByteBuffer.wrap(body);
            while (payload.hasRemaining()) {
                channel.write(payload);
            }
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            ByteBuffer buffer = ByteBuffer.allocate(8192);
            while (channel.read(buffer) >= 0) {
                answer.write(buffer.array(), 0, buffer.position());
                buffer.clear();
            }
            String text = answer.toString(StandardCharsets.ISO_8859_1);
            if (!text.startsWith("HTTP/1.1 ") || text.length() < 12) {
                throw new IOException(e.method() + " " + e.path() + ": no HTTP answer");
            }
            return Integer.parseInt(text.substring(9, 12));
        }
    }
}
