package io.rkllm.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.it.TestServer;
import io.rkllm.server.harness.RawHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** API keys, CORS, request limits and Jetty's own errors, against a real server. */
class SecurityTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String KEY_A = "sk-test-aaaaaaaaaaaaaaaaaaaaaaaa";
    static final String KEY_B = "sk-test-bbbbbbbbbbbbbbbbbbbbbbbb";
    static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:ok]]\"}]}";

    @TempDir
    Path dir;

    private static RawHttp.Response call(TestServer server, String method, String path, Map<String, String> headers,
                                         String body) throws Exception {
        Map<String, String> h = new LinkedHashMap<>(headers);
        if (body != null) {
            h.putIfAbsent("Content-Type", "application/json");
        }
        return RawHttp.exchange("127.0.0.1", server.port(), RawHttp.request(method, path, h,
                body == null ? null : body.getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(20));
    }

    private static JsonNode error(RawHttp.Response r) throws Exception {
        assertThat(r.header("content-type")).startsWith("application/json");
        JsonNode error = JSON.readTree(r.body()).path("error");
        assertThat(error.path("message").isTextual()).isTrue();
        assertThat(error.path("type").isTextual()).isTrue();
        assertThat(error.has("param")).isTrue();
        assertThat(error.has("code")).isTrue();
        return error;
    }

    @Test
    void keysAreRequiredOnEveryRouteButHealthAndModels() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of())
                .set("security.api_keys", KEY_A + "," + KEY_B).start()) {
            RawHttp.Response missing = call(server, "POST", "/v1/chat/completions", Map.of(), CHAT);
            assertThat(missing.status()).isEqualTo(401);
            assertThat(missing.header("www-authenticate")).startsWith("Bearer");
            assertThat(missing.header("x-request-id")).isNotBlank();
            JsonNode e = error(missing);
            assertThat(e.path("type").asText()).isEqualTo("authentication_error");
            assertThat(e.path("code").asText()).isEqualTo("missing_api_key");

            RawHttp.Response wrong = call(server, "POST", "/v1/chat/completions",
                    Map.of("Authorization", "Bearer " + KEY_A + "x"), CHAT);
            assertThat(wrong.status()).isEqualTo(401);
            assertThat(error(wrong).path("code").asText()).isEqualTo("invalid_api_key");
            assertThat(wrong.text()).doesNotContain(KEY_A);

            assertThat(call(server, "POST", "/v1/chat/completions", Map.of("Authorization", "Bearer " + KEY_A), CHAT)
                    .status()).isEqualTo(200);
            assertThat(call(server, "POST", "/v1/chat/completions", Map.of("authorization", "bearer  " + KEY_B), CHAT)
                    .status()).isEqualTo(200);
            assertThat(call(server, "POST", "/v1/chat/completions", Map.of("X-Api-Key", KEY_B), CHAT).status())
                    .isEqualTo(200);
            // a wrong bearer next to a right x-api-key (or the other way round) is accepted: one of them is the key
            assertThat(call(server, "POST", "/v1/chat/completions",
                    Map.of("Authorization", "Bearer nope", "X-Api-Key", KEY_A), CHAT).status()).isEqualTo(200);
            assertThat(call(server, "POST", "/v1/chat/completions", Map.of("Authorization", "Basic " + KEY_A), CHAT)
                    .status()).isEqualTo(401);

            assertThat(call(server, "GET", "/health", Map.of(), null).status()).isEqualTo(200);
            assertThat(call(server, "GET", "/v1/health", Map.of(), null).status()).isEqualTo(200);
            assertThat(call(server, "GET", "/v1/models", Map.of(), null).status()).isEqualTo(200);
            assertThat(call(server, "GET", "/models/m", Map.of(), null).status()).isEqualTo(200);
            // everything else, including unknown routes and the model admin routes, needs the key
            assertThat(call(server, "POST", "/v1/models/m/load", Map.of(), "").status()).isEqualTo(401);
            assertThat(call(server, "POST", "/v1/models/m/unload", Map.of(), "").status()).isEqualTo(401);
            assertThat(call(server, "POST", "/v1/completions", Map.of(), "{}").status()).isEqualTo(401);
            assertThat(call(server, "GET", "/v1/secret", Map.of(), null).status()).isEqualTo(401);
            assertThat(call(server, "GET", "/health/../v1/models/m/load", Map.of(), null).status()).isIn(400, 401, 404);
            assertThat(call(server, "GET", "/v1/secret", Map.of("X-Api-Key", KEY_A), null).status()).isEqualTo(404);
        }
    }

    @Test
    void ollamaAndAnthropicRoutesAnswerA401InTheirOwnShape() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of())
                .set("security.api_keys", KEY_A).start()) {
            RawHttp.Response ollama = call(server, "POST", "/api/chat", Map.of(),
                    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertThat(ollama.status()).isEqualTo(401);
            assertThat(JSON.readTree(ollama.body()).path("error").isTextual()).isTrue();
            RawHttp.Response anthropic = call(server, "POST", "/v1/messages", Map.of("x-api-key", "wrong"),
                    "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertThat(anthropic.status()).isEqualTo(401);
            JsonNode a = JSON.readTree(anthropic.body());
            assertThat(a.path("type").asText()).isEqualTo("error");
            assertThat(a.at("/error/type").asText()).isEqualTo("authentication_error");
            assertThat(call(server, "POST", "/v1/messages", Map.of("x-api-key", KEY_A),
                    "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"[[say:hi]]\"}]}")
                    .status()).isEqualTo(200);
            // Ollama's model list and version are public like /v1/models (Open WebUI checks the connection with them)
            assertThat(call(server, "GET", "/api/tags", Map.of(), null).status()).isEqualTo(200);
            assertThat(call(server, "GET", "/api/version", Map.of(), null).status()).isEqualTo(200);
            assertThat(call(server, "GET", "/api/ps", Map.of(), null).status()).isEqualTo(401);
            assertThat(call(server, "GET", "/metrics", Map.of(), null).status()).isEqualTo(401);
            assertThat(call(server, "GET", "/metrics", Map.of("Authorization", "Bearer " + KEY_A), null).status())
                    .isEqualTo(200);
        }
    }

    @Test
    void aNetworkBindWithoutKeysWarnsAtStartup() throws Exception {
        var logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(AccessPolicy.class);
        var captured = new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>();
        captured.start();
        logger.addAppender(captured);
        try {
            try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("server.host", "0.0.0.0").start()) {
                assertThat(server.getForReply("/health").status()).isEqualTo(200);
            }
            assertThat(captured.list).anySatisfy(e -> assertThat(e.getFormattedMessage())
                    .contains("WITHOUT API keys").contains("0.0.0.0"));
            captured.list.clear();
            try (TestServer server = TestServer.in(dir.resolve("k")).model("m", Map.of())
                    .set("server.host", "0.0.0.0").set("security.api_keys", KEY_A).start()) {
                assertThat(server.getForReply("/health").status()).isEqualTo(200);
            }
            assertThat(captured.list).noneSatisfy(e -> assertThat(e.getFormattedMessage()).contains("WITHOUT"));
            assertThat(captured.list).allSatisfy(e -> assertThat(e.getFormattedMessage()).doesNotContain(KEY_A));
        } finally {
            logger.detachAppender(captured);
        }
    }

    @Test
    void modelsCanBePrivateToo() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of())
                .set("security.api_keys", KEY_A).set("security.public_models", "false").start()) {
            assertThat(call(server, "GET", "/v1/models", Map.of(), null).status()).isEqualTo(401);
            assertThat(call(server, "GET", "/v1/models/m", Map.of(), null).status()).isEqualTo(401);
            assertThat(call(server, "GET", "/v1/models", Map.of("Authorization", "Bearer " + KEY_A), null).status())
                    .isEqualTo(200);
            assertThat(call(server, "GET", "/health", Map.of(), null).status()).isEqualTo(200);
        }
    }

    @Test
    void keysComeFromAFileToo() throws Exception {
        Path file = dir.resolve("keys");
        Files.writeString(file, "# the keys of the team\n\n  " + KEY_B + "  \n");
        try (TestServer server = TestServer.in(dir).model("m", Map.of())
                .set("security.api_keys", KEY_A).set("security.api_key_file", file.toString()).start()) {
            assertThat(call(server, "POST", "/v1/chat/completions", Map.of("X-Api-Key", KEY_B), CHAT).status())
                    .isEqualTo(200);
            assertThat(call(server, "POST", "/v1/chat/completions", Map.of("X-Api-Key", KEY_A), CHAT).status())
                    .isEqualTo(200);
        }
        Path empty = dir.resolve("empty");
        Files.writeString(empty, "# nothing\n");
        assertThatThrownBy(() -> TestServer.in(dir.resolve("x")).model("m", Map.of())
                .set("security.api_key_file", empty.toString()).start())
                .isInstanceOf(ConfigException.class).hasMessageContaining("holds no key");
        assertThatThrownBy(() -> TestServer.in(dir.resolve("y")).model("m", Map.of())
                .set("security.api_key_file", dir.resolve("missing").toString()).start())
                .isInstanceOf(ConfigException.class).hasMessageContaining("security.api_key_file: cannot read");
        Path bad = dir.resolve("bad");
        Files.writeString(bad, "good-key-123456789\nsecret with spaces\n");
        assertThatThrownBy(() -> TestServer.in(dir.resolve("z")).model("m", Map.of())
                .set("security.api_key_file", bad.toString()).start())
                .isInstanceOf(ConfigException.class).hasMessageContaining("line 2")
                .satisfies(t -> assertThat(t.getMessage()).doesNotContain("secret"));
    }

    @Test
    void keysCompareInConstantTimeOnDigests() {
        ApiKeys keys = ApiKeys.of(List.of(KEY_A, KEY_B, KEY_A));
        assertThat(keys.size()).isEqualTo(2);
        assertThat(keys.enabled()).isTrue();
        assertThat(keys.accepts(KEY_A)).isTrue();
        assertThat(keys.accepts(KEY_B)).isTrue();
        assertThat(keys.accepts(KEY_A.substring(1))).isFalse();
        assertThat(keys.accepts("")).isFalse();
        assertThat(keys.accepts(null)).isFalse();
        assertThat(ApiKeys.of(List.of()).enabled()).isFalse();
    }

    @Test
    void withoutCorsOriginsPreflightsAreRefusedAndOptionsAnswered() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            RawHttp.Response preflight = call(server, "OPTIONS", "/v1/chat/completions",
                    Map.of("Origin", "http://evil.example", "Access-Control-Request-Method", "POST"), null);
            assertThat(preflight.status()).isEqualTo(403);
            assertThat(error(preflight).path("code").asText()).isEqualTo("cors_origin_not_allowed");
            assertThat(preflight.header("access-control-allow-origin")).isNull();
            RawHttp.Response options = call(server, "OPTIONS", "/v1/chat/completions", Map.of(), null);
            assertThat(options.status()).isEqualTo(204);
            assertThat(options.header("allow")).contains("POST");
            RawHttp.Response post = call(server, "POST", "/v1/chat/completions",
                    Map.of("Origin", "http://evil.example"), CHAT);
            assertThat(post.status()).isEqualTo(200);
            assertThat(post.header("access-control-allow-origin")).isNull();
        }
    }

    @Test
    void allowedOriginsGetPreflightsWithoutKeysAndTheHeadersSdksSend() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of())
                .set("security.api_keys", KEY_A)
                .set("security.cors_origins", "http://localhost:3000,https://chat.example.org").start()) {
            RawHttp.Response preflight = call(server, "OPTIONS", "/v1/chat/completions",
                    Map.of("Origin", "http://localhost:3000", "Access-Control-Request-Method", "POST",
                            "Access-Control-Request-Headers",
                            "authorization, content-type, x-stainless-os, x-stainless-retry-count, openai-organization,"
                                    + " x-api-key, openai-project, x-evil"), null);
            assertThat(preflight.status()).isEqualTo(204);
            assertThat(preflight.header("access-control-allow-origin")).isEqualTo("http://localhost:3000");
            assertThat(preflight.header("access-control-allow-methods")).contains("POST").contains("GET");
            assertThat(preflight.header("access-control-allow-headers"))
                    .contains("authorization", "content-type", "x-stainless-os", "x-stainless-retry-count",
                            "openai-organization", "x-api-key", "openai-project").doesNotContain("x-evil");
            assertThat(preflight.header("vary")).contains("Origin");

            RawHttp.Response post = call(server, "POST", "/v1/chat/completions",
                    Map.of("Origin", "https://chat.example.org", "Authorization", "Bearer " + KEY_A), CHAT);
            assertThat(post.status()).isEqualTo(200);
            assertThat(post.header("access-control-allow-origin")).isEqualTo("https://chat.example.org");
            assertThat(post.header("access-control-expose-headers")).contains("x-request-id");
            // the browser can read the 401 too
            RawHttp.Response denied = call(server, "POST", "/v1/chat/completions",
                    Map.of("Origin", "https://chat.example.org"), CHAT);
            assertThat(denied.status()).isEqualTo(401);
            assertThat(denied.header("access-control-allow-origin")).isEqualTo("https://chat.example.org");

            assertThat(call(server, "OPTIONS", "/v1/models", Map.of("Origin", "http://other.example",
                    "Access-Control-Request-Method", "GET"), null).status()).isEqualTo(403);
        }
    }

    @Test
    void anyOriginWithAStar() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("security.cors_origins", "*").start()) {
            RawHttp.Response preflight = call(server, "OPTIONS", "/v1/models",
                    Map.of("Origin", "http://anything.example:8080", "Access-Control-Request-Method", "GET"), null);
            assertThat(preflight.status()).isEqualTo(204);
            assertThat(preflight.header("access-control-allow-origin")).isEqualTo("http://anything.example:8080");
        }
    }

    @Test
    void limitsAreConfigurableAndAnsweredInTheOpenAiShape() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of())
                .set("limits.max_body_mb", "1").set("limits.max_messages", "3").set("limits.max_tokens", "100")
                .set("limits.max_stop", "2").set("limits.max_stop_length", "5").start()) {
            String big = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "a".repeat(1_100_000) + "\"}]}";
            RawHttp.Response tooLarge = call(server, "POST", "/v1/chat/completions", Map.of(), big);
            assertThat(tooLarge.status()).isEqualTo(413);
            assertThat(error(tooLarge).path("code").asText()).isEqualTo("request_too_large");
            assertThat(error(tooLarge).path("message").asText()).contains("limits.max_body_mb");

            String four = "{\"model\":\"m\",\"messages\":[" + "{\"role\":\"user\",\"content\":\"a\"},".repeat(3)
                    + "{\"role\":\"user\",\"content\":\"a\"}]}";
            RawHttp.Response messages = call(server, "POST", "/v1/chat/completions", Map.of(), four);
            assertThat(messages.status()).isEqualTo(400);
            assertThat(error(messages).path("param").asText()).isEqualTo("messages");

            RawHttp.Response tokens = call(server, "POST", "/v1/chat/completions", Map.of(),
                    CHAT.replace("}]}", "}],\"max_tokens\":101}"));
            assertThat(tokens.status()).isEqualTo(400);
            assertThat(error(tokens).path("param").asText()).isEqualTo("max_tokens");
            assertThat(call(server, "POST", "/v1/chat/completions", Map.of(),
                    CHAT.replace("}]}", "}],\"max_tokens\":100}")).status()).isEqualTo(200);

            assertThat(call(server, "POST", "/v1/chat/completions", Map.of(),
                    CHAT.replace("}]}", "}],\"stop\":[\"a\",\"b\",\"c\"]}")).status()).isEqualTo(400);
            assertThat(call(server, "POST", "/v1/chat/completions", Map.of(),
                    CHAT.replace("}]}", "}],\"stop\":\"abcdef\"}")).status()).isEqualTo(400);
            assertThat(call(server, "POST", "/v1/chat/completions", Map.of(),
                    CHAT.replace("}]}", "}],\"stop\":[\"abcde\",\"x\"]}")).status()).isEqualTo(200);
        }
    }

    @Test
    void jettysOwnErrorsAreOpenAiShapedJsonToo() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            for (String request : List.of(
                    "GARBAGE\r\n\r\n",
                    "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(70_000) + "\r\nConnection: close\r\n\r\n",
                    "GET /health?" + "a".repeat(70_000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    "GET /v1/models/%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    "GET /v1/models/%00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    "GET /health HTTP/1.1\r\nHost: x\r\nBroken header\r\nConnection: close\r\n\r\n")) {
                RawHttp.Response r = RawHttp.exchange("127.0.0.1", server.port(),
                        request.getBytes(StandardCharsets.ISO_8859_1), Duration.ofSeconds(10));
                assertThat(r.status()).as(request.substring(0, Math.min(20, request.length()))).isBetween(400, 499);
                error(r);
            }
            RawHttp.Response delete = call(server, "DELETE", "/v1/chat/completions", Map.of(), null);
            assertThat(delete.status()).isEqualTo(405);
            error(delete);
        }
    }

    @Test
    void requestsCannotNameFilesOutsideTheCatalog() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            for (String model : List.of("../../etc/passwd", "/etc/passwd", "m/../../x", dir.resolve("models/m/m.rkllm")
                    .toString(), "~/models/m")) {
                RawHttp.Response chat = call(server, "POST", "/v1/chat/completions", Map.of(),
                        CHAT.replace("\"model\":\"m\"", "\"model\":" + JSON.writeValueAsString(model)));
                assertThat(chat.status()).as(model).isEqualTo(404);
                assertThat(error(chat).path("code").asText()).isEqualTo("model_not_found");
            }
            for (String id : List.of("..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "..", "%2e%2e")) {
                assertThat(call(server, "POST", "/v1/models/" + id + "/load", Map.of(), "").status()).as(id)
                        .isIn(400, 404);
                assertThat(call(server, "GET", "/v1/models/" + id, Map.of(), null).status()).as(id).isIn(400, 404);
            }
        }
    }
}
