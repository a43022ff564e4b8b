package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Open WebUI request bodies with retrieved web pages and document chunks: what reaches the runtime
 * (the simulated runtime's trace) is the compact prompt, within the context, with citations kept.
 */
class RagEndToEndTest {
    private static final String QUESTION = "How much does the Xbox One X cost compared to the PS4 Pro?";
    /** The question as the compact prompt asks it: "According to the above, how much ..." */
    private static final String ASKED = "how much does the Xbox One X cost compared to the PS4 Pro?";
    @TempDir
    Path dir;

    private static String fixture(String name) throws IOException {
        try (InputStream in = RagEndToEndTest.class.getResourceAsStream("/rag/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private TestServer server(int context) {
        return TestServer.in(dir).model("m", Map.of("max_context_limit", Integer.toString(context)))
                .sidecar("m", "family: qwen2.5\ncontext_length: " + context + "\n").start();
    }

    private static ObjectNode request(ArrayNode messages) {
        ObjectNode body = TestServer.JSON.createObjectNode().put("model", "m").put("stream", true);
        body.set("messages", messages);
        return body;
    }

    @ParameterizedTest
    @ValueSource(ints = {2048, 4096, 8192})
    void webResultsInTheUserMessageBecomeACompactPromptThatFitsTheContext(int context) throws Exception {
        try (TestServer server = server(context)) {
            ArrayNode messages = TestServer.JSON.createArrayNode();
            messages.addObject().put("role", "user").put("content", fixture("web-user-message.txt"));
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", request(messages).toString());
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.header("X-RKLLM-RAG")).startsWith("sources=");
            JsonNode run = server.runs("m").getFirst();
            String prompt = run.get("prompt").asText();
            assertThat(prompt).contains("According to the above, " + ASKED).contains("[1]");
            assertThat(prompt).doesNotContain("<source").doesNotContain("### Guidelines");
            assertThat(prompt.length()).isLessThan(fixture("web-user-message.txt").length());
            // prompt and room for the answer within the context, by the runtime's own count
            assertThat(run.get("prefill_tokens").asInt()).isLessThanOrEqualTo(context - 512 / 2);
            assertThat(run.get("result").asText()).isEqualTo("finish");
        }
    }

    @Test
    void contextInTheSystemMessageMovesToTheUserTurnAndTheSystemPromptStaysStable() throws Exception {
        try (TestServer server = server(4096)) {
            ArrayNode messages = TestServer.JSON.createArrayNode();
            messages.addObject().put("role", "system").put("content", fixture("web-system-message.txt"));
            messages.addObject().put("role", "user").put("content", QUESTION);
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", request(messages).toString());
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            JsonNode run = server.runs("m").getFirst();
            assertThat(run.get("prompt").asText()).contains(ASKED).contains("[1]");
            assertThat(run.get("prefilled_text").asText()).doesNotContain("<source").doesNotContain("<context>");
        }
    }

    @Test
    void documentChunksKeepTheirCitationsAndAreNotWebCleaned() throws Exception {
        try (TestServer server = server(4096)) {
            ArrayNode messages = TestServer.JSON.createArrayNode();
            messages.addObject().put("role", "user").put("content", fixture("docs-user-message.txt"));
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", request(messages).toString());
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            String prompt = server.runs("m").getFirst().get("prompt").asText();
            assertThat(prompt).contains("If-Match").contains("[1]");
        }
    }

    @Test
    void theTurnAfterARagTurnIsIncremental() throws Exception {
        try (TestServer server = server(4096)) {
            ArrayNode messages = TestServer.JSON.createArrayNode();
            messages.addObject().put("role", "user").put("content", fixture("web-user-message.txt"));
            ObjectNode first = request(messages).put("stream", false);
            String answer = server.postForReply("/v1/chat/completions", first.toString()).json()
                    .at("/choices/0/message/content").asText();
            // Open WebUI keeps the user's own question in the history, not the template it sent
            ArrayNode history = TestServer.JSON.createArrayNode();
            history.addObject().put("role", "user").put("content", QUESTION);
            history.addObject().put("role", "assistant").put("content", answer);
            history.addObject().put("role", "user").put("content", "Thanks! Which one is faster?");
            TestServer.Reply second = server.postForReply("/v1/chat/completions",
                    request(history).put("stream", false).toString());
            assertThat(second.status()).isEqualTo(200);
            JsonNode run = server.runs("m").get(1);
            assertThat(run.get("prompt").asText()).isEqualTo("Thanks! Which one is faster?");
            assertThat(second.json().at("/usage/prompt_tokens_details/cached_tokens").asInt()).isPositive();
        }
    }
}
