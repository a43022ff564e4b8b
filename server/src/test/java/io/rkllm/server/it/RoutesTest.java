package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The legacy completions route, every route with and without /v1, model info, /health and request ids. */
class RoutesTest {
    @TempDir
    Path dir;

    @Test
    void legacyCompletionsAnswerTextCompletionsInBothModes() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            for (String prefix : List.of("/v1", "")) {
                TestServer.Reply reply = server.postForReply(prefix + "/completions",
                        "{\"model\":\"m\",\"prompt\":\"[[say:Hello, wörld!]]\"}");
                assertThat(reply.status()).as(reply.body()).isEqualTo(200);
                assertThat(reply.header("Content-Type")).startsWith("application/json");
                JsonNode body = reply.json();
                assertThat(body.get("object").asText()).isEqualTo("text_completion");
                assertThat(body.get("id").asText()).startsWith("cmpl-");
                assertThat(body.get("created").isIntegralNumber()).isTrue();
                assertThat(body.get("model").asText()).isEqualTo("m");
                assertThat(body.at("/choices/0/text").asText()).isEqualTo("Hello, wörld!");
                assertThat(body.at("/choices/0/index").asInt()).isZero();
                assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
                assertThat(body.at("/choices/0").has("message")).isFalse();
                assertThat(body.at("/usage/completion_tokens").asInt())
                        .isEqualTo(server.runs("m").getLast().get("generate_tokens").asInt());

                TestServer.Reply streamed = server.postForReply(prefix + "/completions",
                        "{\"model\":\"m\",\"prompt\":\"[[say:Hello, world!]]\",\"stream\":true,\"max_tokens\":3}");
                assertThat(streamed.status()).isEqualTo(200);
                assertThat(streamed.header("Content-Type")).startsWith("text/event-stream");
                SseEvents events = SseEvents.parse(streamed.body());
                assertThat(events.data().getLast()).isEqualTo("[DONE]");
                assertThat(events.data().stream().filter("[DONE]"::equals)).hasSize(1);
                List<JsonNode> chunks = events.chunks();
                StringBuilder text = new StringBuilder();
                int finishes = 0;
                for (JsonNode c : chunks) {
                    assertThat(c.get("object").asText()).isEqualTo("text_completion");
                    assertThat(c.get("id").asText()).isEqualTo(chunks.getFirst().get("id").asText());
                    assertThat(c.get("created").asLong()).isEqualTo(chunks.getFirst().get("created").asLong());
                    JsonNode choice = c.at("/choices/0");
                    assertThat(choice.has("delta")).isFalse();
                    assertThat(choice.has("finish_reason")).as("finish_reason written out").isTrue();
                    text.append(choice.get("text").asText());
                    if (!choice.get("finish_reason").isNull()) {
                        finishes++;
                        assertThat(choice.get("finish_reason").asText()).isEqualTo("length");
                        assertThat(c).isSameAs(chunks.getLast());
                    }
                }
                assertThat(finishes).isEqualTo(1);
                assertThat(text.toString()).isEqualTo("Hello, wo"); // 3 tokens of 3 bytes
            }
        }
    }

    @Test
    void everyRouteAlsoAnswersWithoutTheV1Prefix() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            for (String prefix : List.of("/v1", "")) {
                TestServer.Reply chat = server.postForReply(prefix + "/chat/completions",
                        QueueTest.chat("[[say:hi]]", false));
                assertThat(chat.json().at("/choices/0/message/content").asText()).isEqualTo("hi");
                SseEvents events = SseEvents.parse(server.postForReply(prefix + "/chat/completions",
                        QueueTest.chat("[[say:hi]]", true)).body());
                assertThat(events.content(events.assertValidChatStream(false))).isEqualTo("hi");
                assertThat(server.getForReply(prefix + "/models").json().at("/data/0/id").asText()).isEqualTo("m");
                assertThat(server.getForReply(prefix + "/models/m").json().get("id").asText()).isEqualTo("m");
                assertThat(server.postForReply(prefix + "/models/m/unload", "").json().get("loaded").asBoolean())
                        .isFalse();
                assertThat(server.postForReply(prefix + "/models/m/load", "").json().get("loaded").asBoolean())
                        .isTrue();
                assertThat(server.getForReply(prefix + "/health").json().get("status").asText()).isEqualTo("ok");
            }
            ChatCompletionsTest.assertError(server.getForReply("/v2/models"), 404, "not_found");
        }
    }

    @Test
    void modelsAreListedAndDescribedAndUnknownOnesAre404() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("max_context_limit", "2048"))
                .sidecar("m", "context_length: 2048\n").model("other", Map.of()).start()) {
            TestServer.Reply list = server.getForReply("/v1/models");
            assertThat(list.status()).isEqualTo(200);
            assertThat(list.header("Content-Type")).startsWith("application/json");
            JsonNode body = list.json();
            assertThat(body.get("object").asText()).isEqualTo("list");
            assertThat(body.get("data")).hasSize(2);
            for (JsonNode model : body.get("data")) {
                assertThat(model.get("id").asText()).isIn("m", "other");
                assertThat(model.get("object").asText()).isEqualTo("model");
                assertThat(model.get("created").isIntegralNumber()).isTrue();
                assertThat(model.get("created").asLong()).isPositive();
                assertThat(model.get("owned_by").asText()).isNotBlank();
                assertThat(model.get("loaded").isBoolean()).isTrue();
                assertThat(model.get("context_length").asInt()).isPositive();
            }
            JsonNode m = server.getForReply("/v1/models/m").json();
            assertThat(m.get("id").asText()).isEqualTo("m");
            assertThat(m.get("object").asText()).isEqualTo("model");
            assertThat(m.get("context_length").asInt()).isEqualTo(2048);
            assertThat(m.get("loaded").asBoolean()).isFalse();

            TestServer.Reply unknown = server.getForReply("/v1/models/nope");
            ChatCompletionsTest.assertError(unknown, 404, "model_not_found");
            assertThat(unknown.json().at("/error/message").asText()).contains("nope");
            ChatCompletionsTest.assertError(server.postForReply("/v1/models/nope/load", ""), 404, "model_not_found");
            ChatCompletionsTest.assertError(server.postForReply("/v1/models/nope/unload", ""), 404, "model_not_found");
        }
    }

    @Test
    void theRootAnswersClientsThatProbeItLikeOllama() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("security.api_keys", "k").start()) {
            TestServer.Reply root = server.getForReply("/");
            assertThat(root.status()).as("public, like /health").isEqualTo(200);
            assertThat(root.header("Content-Type")).startsWith("text/plain");
            assertThat(root.body()).isEqualTo("Ollama is running");
            try (Response head = server.client().newCall(new Request.Builder().url(server.url("/")).head().build())
                    .execute()) {
                assertThat(head.code()).isEqualTo(200);
            }
            assertThat(server.getForReply("/v1/models/m/nothing").status()).isEqualTo(401);
        }
    }

    @Test
    void healthIsOkWhenServing() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            TestServer.Reply health = server.getForReply("/health");
            assertThat(health.status()).isEqualTo(200);
            assertThat(health.header("Content-Type")).startsWith("application/json");
            assertThat(health.json().get("status").asText()).isEqualTo("ok");
        }
    }

    @Test
    void requestIdsAreEchoedWhenSentAndGeneratedOtherwise() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            String[][] calls = {
                {"POST", "/v1/chat/completions", QueueTest.chat("[[say:x]]", false)},
                {"POST", "/v1/chat/completions", QueueTest.chat("[[say:x]]", true)},
                {"POST", "/v1/chat/completions", "{\"model\":\"nope\",\"messages\":[]}"},
                {"GET", "/v1/models", null},
                {"GET", "/health", null},
                {"GET", "/no/such/route", null},
            };
            java.util.Set<String> generated = new java.util.HashSet<>();
            for (String[] call : calls) {
                assertThat(requestId(server, call, "client-id-42.a:b")).isEqualTo("client-id-42.a:b");
                String fresh = requestId(server, call, null);
                assertThat(fresh).isNotBlank();
                assertThat(generated.add(fresh)).as("a new id per request").isTrue();
            }
        }
    }

    private static String requestId(TestServer server, String[] call, String sent) throws Exception {
        Request.Builder request = new Request.Builder().url(server.url(call[1]));
        if (call[0].equals("POST")) {
            request.post(RequestBody.create(call[2], TestServer.JSON_TYPE));
        }
        if (sent != null) {
            request.header("x-request-id", sent);
        }
        try (Response response = server.client().newCall(request.build()).execute()) {
            response.body().string();
            return response.header("x-request-id");
        }
    }
}
