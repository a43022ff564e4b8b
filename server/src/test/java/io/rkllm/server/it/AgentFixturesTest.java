package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every request the four coding agents sent in the recordings of server/src/test/resources/agents (Claude Code,
 * Codex, opencode, Continue, their current releases), replayed with their own headers: each is answered in its API's
 * shape, streamed to its end; the requests recorded on a 4k model get that API's own context error.
 */
class AgentFixturesTest {
    static final String MODEL = "qwen3-1.7b-sim-64k";
    static final String SMALL = "agent-4k";

    @TempDir
    Path dir;

    private TestServer start() {
        return TestServer.in(dir).model(MODEL, Map.of("max_context_limit", "65536", "thinking", "1"))
                .sidecar(MODEL, "context_length: 65536\nfamily: qwen3\ncapabilities: {thinking: true, tools: true}\n")
                .model(SMALL, Map.of("max_context_limit", "4096", "thinking", "1"))
                .sidecar(SMALL, "context_length: 4096\nfamily: qwen3\ncapabilities: {thinking: true, tools: true}\n")
                .set("models.max_loaded", "2").start();
    }

    private static List<Path> fixtures() throws Exception {
        URL root = AgentFixturesTest.class.getResource("/agents");
        assertThat(root).isNotNull();
        try (Stream<Path> files = Files.walk(Path.of(root.toURI()))) {
            return files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
    }

    @Test
    void everyRecordedRequestIsAnsweredInItsApisShape() throws Exception {
        List<String> checked = new ArrayList<>();
        try (TestServer server = start()) {
            for (Path file : fixtures()) {
                JsonNode fixture = TestServer.JSON.readTree(file.toFile());
                String name = file.getParent().getFileName() + "/" + file.getFileName();
                boolean small = name.contains("4k-context");
                ObjectNode body = (ObjectNode) fixture.at("/request/body").deepCopy();
                body.put("model", small ? SMALL : MODEL);
                Request.Builder request = new Request.Builder().url(server.url(fixture.at("/request/path").asText()))
                        .post(RequestBody.create(body.toString(), TestServer.JSON_TYPE));
                fixture.at("/request/headers").fields().forEachRemaining(h -> {
                    String header = h.getKey().toLowerCase();
                    if (!header.equals("authorization") && !header.equals("x-api-key")
                            && !header.equals("accept-encoding") && !header.equals("content-type")) {
                        request.header(h.getKey(), h.getValue().asText());
                    }
                });
                try (Response r = server.client().newCall(request.build()).execute()) {
                    String text = r.body().string();
                    String path = fixture.at("/request/path").asText();
                    boolean contextError = small && !name.endsWith("-4k-context-compaction.json");
                    if (contextError) {
                        assertThat(r.code()).as(name + ": " + text).isEqualTo(400);
                        contextError(path, TestServer.JSON.readTree(text), name);
                    } else {
                        assertThat(r.code()).as(name + ": " + text).isEqualTo(200);
                        completed(path, body.path("stream").asBoolean(false), text, name);
                    }
                }
                checked.add(name);
            }
        }
        assertThat(checked).as("the recordings of all four clients").anyMatch(n -> n.startsWith("claude-code/"))
                .anyMatch(n -> n.startsWith("codex/")).anyMatch(n -> n.startsWith("opencode/"))
                .anyMatch(n -> n.startsWith("continue/")).hasSizeGreaterThanOrEqualTo(20);
    }

    /** A whole answer: a stream up to its API's last event, or the body's final object. */
    private static void completed(String path, boolean stream, String text, String name) throws Exception {
        if (path.startsWith("/v1/messages")) {
            if (stream) {
                assertThat(text).as(name).contains("event: message_start").endsWith("event: message_stop\n"
                        + "data: {\"type\":\"message_stop\"}\n\n");
            } else {
                assertThat(TestServer.JSON.readTree(text).path("type").asText()).as(name).isEqualTo("message");
            }
        } else if (path.startsWith("/v1/responses")) {
            assertThat(stream).as(name).isTrue();
            assertThat(text).as(name).contains("event: response.created").contains("event: response.completed");
        } else {
            if (stream) {
                assertThat(text).as(name).endsWith("data: [DONE]\n\n");
            } else {
                assertThat(TestServer.JSON.readTree(text).path("choices").isArray()).as(name).isTrue();
            }
        }
    }

    /** The context error each client recognises: Anthropic's "prompt is too long", OpenAI's code. */
    private static void contextError(String path, JsonNode body, String name) {
        if (path.startsWith("/v1/messages")) {
            assertThat(body.path("type").asText()).as(name).isEqualTo("error");
            assertThat(body.at("/error/message").asText()).as(name).matches("prompt is too long: \\d+ tokens > 4096"
                    + " maximum\\..*");
        } else {
            assertThat(body.at("/error/code").asText()).as(name).isEqualTo("context_length_exceeded");
            assertThat(body.at("/error/n_ctx").asInt()).as(name).isEqualTo(4096);
        }
    }
}
