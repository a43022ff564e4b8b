package io.rkllm.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.it.TestServer;
import io.rkllm.server.harness.RawHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each API family answers every kind of error in its own shape: a bad request its route refused, an unknown path
 * under its prefix, a method it does not take, and errors Jetty raises before any route runs.
 */
class ErrorShapesTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static RawHttp.Response raw(TestServer server, String request) throws Exception {
        return RawHttp.exchange("127.0.0.1", server.port(), request.getBytes(StandardCharsets.ISO_8859_1),
                Duration.ofSeconds(20));
    }

    private static RawHttp.Response post(TestServer server, String path, String body) throws Exception {
        return RawHttp.exchange("127.0.0.1", server.port(), RawHttp.request("POST", path,
                Map.of("Content-Type", "application/json"), body.getBytes(StandardCharsets.UTF_8)),
                Duration.ofSeconds(20));
    }

    private static void anthropic(RawHttp.Response r, int status, String type) throws Exception {
        assertThat(r.status()).isEqualTo(status);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("type").asText()).isEqualTo("error");
        assertThat(body.path("error").path("type").asText()).isEqualTo(type);
        assertThat(body.path("error").path("message").asText()).isNotBlank();
    }

    private static void ollama(RawHttp.Response r, int status) throws Exception {
        assertThat(r.status()).isEqualTo(status);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.size()).isEqualTo(1);
        assertThat(body.path("error").isTextual()).isTrue();
    }

    private static void openAi(RawHttp.Response r, int status) throws Exception {
        assertThat(r.status()).isEqualTo(status);
        JsonNode error = JSON.readTree(r.body()).path("error");
        assertThat(error.path("message").isTextual()).isTrue();
        assertThat(error.has("type")).isTrue();
        assertThat(error.has("param")).isTrue();
        assertThat(error.has("code")).isTrue();
    }

    @Test
    void everyErrorOfAFamilyIsInItsShape() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            anthropic(post(server, "/v1/messages", "{\"model\":\"m\"}"), 400, "invalid_request_error");
            anthropic(post(server, "/v1/messages/count_tokens", "not json"), 400, "invalid_request_error");
            anthropic(post(server, "/v1/messages/batches", "{}"), 404, "not_found_error");
            anthropic(raw(server, "POST /v1/messages/count_tokens%ff HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                    + "Connection: close\r\n\r\n"), 400, "invalid_request_error");
            anthropic(raw(server, "GET /v1/messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 405,
                    "invalid_request_error");

            ollama(post(server, "/api/chat", "{}"), 400);
            ollama(post(server, "/api/pull", "{}"), 400);
            ollama(post(server, "/api/push", "{}"), 404);
            ollama(raw(server, "GET /api/%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 400);

            openAi(post(server, "/v1/responses", "{}"), 400);
            openAi(post(server, "/v1/chat/completions", "{}"), 400);
            openAi(raw(server, "GET /v1/models/%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 400);
            openAi(raw(server, "GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 404);
        }
    }
}
