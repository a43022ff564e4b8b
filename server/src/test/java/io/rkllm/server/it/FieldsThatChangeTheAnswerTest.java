package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fields the client libraries send that change what the answer must be: honoured (no trimming when the client
 * forbids it, the newest efforts) or refused with a 400 naming them, never answered as if they were absent. A
 * 512-token model, so that a long conversation needs its oldest exchanges left out.
 */
class FieldsThatChangeTheAnswerTest {
    private static final int CONTEXT = 512;
    @TempDir
    static Path dir;
    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.in(dir).model("m", Map.of("max_context_limit", Integer.toString(CONTEXT),
                        "reply_tokens", "8"))
                .sidecar("m", "context_length: " + CONTEXT + "\nfamily: qwen2.5\n")
                .set("generation.reserved_output_tokens", "64").start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** A conversation of {@code turns} exchanges of about 60 words each: far more than 512 tokens. */
    private static ArrayNode longConversation(int turns, String roleKey) {
        ArrayNode messages = TestServer.JSON.createArrayNode();
        String words = "the board has eight cores and a neural processing unit ".repeat(6);
        for (int i = 0; i < turns; i++) {
            messages.addObject().put(roleKey, "user").put("content", "Question " + i + ": " + words);
            messages.addObject().put(roleKey, "assistant").put("content", "Answer " + i + ": " + words);
        }
        messages.addObject().put(roleKey, "user").put("content", "[[say:ok]]");
        return messages;
    }

    private static TestServer.Reply post(String path, String body) throws Exception {
        return server.postForReply(path, body);
    }

    @Test
    void theResponsesApiTrimsOnlyWhenTruncationAllowsIt() throws Exception {
        for (String truncation : List.of("", ",\"truncation\":\"auto\"")) {
            TestServer.Reply trimmed = post("/v1/responses", "{\"model\":\"m\",\"input\":"
                    + longConversation(12, "role") + truncation + "}");
            assertThat(trimmed.status()).as(trimmed.body()).isEqualTo(200);
            assertThat(trimmed.header("X-RKLLM-Context-Trimmed")).isNotNull();
            assertThat(trimmed.json().get("truncation").asText()).isEqualTo("auto");
        }
        int runs = server.runs("m").size();
        for (boolean stream : new boolean[] {false, true}) {
            TestServer.Reply refused = post("/v1/responses", "{\"model\":\"m\",\"truncation\":\"disabled\","
                    + "\"stream\":" + stream + ",\"input\":" + longConversation(12, "role") + "}");
            assertThat(refused.status()).as(refused.body()).isEqualTo(400);
            assertThat(refused.json().at("/error/code").asText()).isEqualTo("context_length_exceeded");
            assertThat(refused.json().at("/error/message").asText()).contains("truncation disabled");
        }
        assertThat(server.runs("m")).as("nothing ran").hasSize(runs);
        TestServer.Reply fits = post("/v1/responses", "{\"model\":\"m\",\"truncation\":\"disabled\","
                + "\"input\":\"[[say:ok]]\"}");
        assertThat(fits.status()).as(fits.body()).isEqualTo(200);
        assertThat(fits.json().get("truncation").asText()).isEqualTo("disabled");
        TestServer.Reply wrong = post("/v1/responses", "{\"model\":\"m\",\"truncation\":\"never\",\"input\":\"hi\"}");
        assertThat(wrong.status()).isEqualTo(400);
        assertThat(wrong.json().at("/error/param").asText()).isEqualTo("truncation");
    }

    @Test
    void ollamaRefusesToTrimWhenTruncateIsFalse() throws Exception {
        String messages = longConversation(12, "role").toString();
        TestServer.Reply trimmed = post("/api/chat", "{\"model\":\"m\",\"stream\":false,\"messages\":" + messages
                + "}");
        assertThat(trimmed.status()).as(trimmed.body()).isEqualTo(200);
        assertThat(trimmed.header("X-RKLLM-Context-Trimmed")).isNotNull();
        for (boolean stream : new boolean[] {false, true}) {
            TestServer.Reply refused = post("/api/chat", "{\"model\":\"m\",\"truncate\":false,\"stream\":" + stream
                    + ",\"messages\":" + messages + "}");
            assertThat(refused.status()).as(refused.body()).isEqualTo(400);
            assertThat(refused.json().get("error").asText()).contains("maximum context length");
        }
    }

    @Test
    void ollamaRefusesPromptsReadOtherwiseThanThroughTheTemplate() throws Exception {
        for (String field : List.of("\"template\":\"{{ .Prompt }}\"", "\"context\":[1,2,3]")) {
            TestServer.Reply reply = post("/api/generate", "{\"model\":\"m\",\"stream\":false,\"prompt\":"
                    + "\"[[say:ok]]\"," + field + "}");
            assertThat(reply.status()).as(field + ": " + reply.body()).isEqualTo(400);
            assertThat(reply.json().get("error").asText()).as(field).contains(field.substring(1,
                    field.indexOf('"', 1)));
        }
        // false, empty and an empty list ask for nothing
        TestServer.Reply plain = post("/api/generate", "{\"model\":\"m\",\"stream\":false,\"prompt\":\"[[say:ok]]\","
                + "\"raw\":false,\"template\":\"\",\"context\":[]}");
        assertThat(plain.status()).as(plain.body()).isEqualTo(200);
        assertThat(plain.json().get("response").asText()).isEqualTo("ok");
    }

    @Test
    void anthropicBetasThatNeedAnthropicAreRefused() throws Exception {
        for (String field : List.of("\"thread\":{\"type\":\"continue\",\"previous_message_id\":\"msg_1\"}",
                "\"compaction\":{\"type\":\"summarize\"}",
                "\"mcp_servers\":[{\"type\":\"url\",\"url\":\"https://example.com/sse\",\"name\":\"x\"}]")) {
            TestServer.Reply reply = post("/v1/messages", "{\"model\":\"m\",\"max_tokens\":16,\"messages\":[{\"role\":"
                    + "\"user\",\"content\":\"[[say:ok]]\"}]," + field + "}");
            assertThat(reply.status()).as(field + ": " + reply.body()).isEqualTo(400);
            JsonNode error = reply.json();
            assertThat(error.get("type").asText()).isEqualTo("error");
            assertThat(error.at("/error/type").asText()).isEqualTo("invalid_request_error");
            assertThat(error.at("/error/message").asText()).contains(field.substring(1, field.indexOf('"', 1)));
        }
        TestServer.Reply none = post("/v1/messages", "{\"model\":\"m\",\"max_tokens\":16,\"mcp_servers\":[],"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"[[say:ok]]\"}]}");
        assertThat(none.status()).as(none.body()).isEqualTo(200);
    }

    @Test
    void theNewestEffortsAreTheHighestATemplateTakes() throws Exception {
        for (String effort : List.of("xhigh", "max")) {
            TestServer.Reply chat = post("/v1/chat/completions", "{\"model\":\"m\",\"reasoning_effort\":\"" + effort
                    + "\",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:ok]]\"}]}");
            assertThat(chat.status()).as(chat.body()).isEqualTo(200);
            TestServer.Reply responses = post("/v1/responses", "{\"model\":\"m\",\"reasoning\":{\"effort\":\""
                    + effort + "\"},\"input\":\"[[say:ok]]\"}");
            assertThat(responses.status()).as(responses.body()).isEqualTo(200);
        }
        TestServer.Reply wrong = post("/v1/chat/completions", "{\"model\":\"m\",\"reasoning_effort\":\"extreme\","
                + "\"messages\":[{\"role\":\"user\",\"content\":\"[[say:ok]]\"}]}");
        assertThat(wrong.status()).isEqualTo(400);
        assertThat(wrong.json().at("/error/message").asText()).contains("xhigh, max");
    }

    @Test
    void objectFieldsOfAnotherTypeAreRefusedNotDropped() throws Exception {
        String message = "\"messages\":[{\"role\":\"user\",\"content\":\"[[say:ok]]\"}]";
        for (String[] call : new String[][] {
                {"/api/chat", "{\"model\":\"m\",\"stream\":false,\"options\":\"x\"," + message + "}", "options"},
                {"/api/generate", "{\"model\":\"m\",\"stream\":false,\"options\":[1],\"prompt\":\"hi\"}",
                        "options"},
                {"/v1/chat/completions", "{\"model\":\"m\",\"chat_template_kwargs\":\"x\"," + message + "}",
                        "chat_template_kwargs"},
                {"/v1/chat/completions", "{\"model\":\"m\",\"stream\":true,\"stream_options\":5," + message + "}",
                        "stream_options"},
                {"/v1/messages", "{\"model\":\"m\",\"max_tokens\":8,\"metadata\":\"x\"," + message + "}",
                        "metadata"}}) {
            TestServer.Reply reply = post(call[0], call[1]);
            assertThat(reply.status()).as(call[1] + ": " + reply.body()).isEqualTo(400);
            assertThat(reply.body()).as(call[1]).contains("'" + call[2] + "' must be an object");
        }
    }
}
