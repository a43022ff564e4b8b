package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent's tool loop over Anthropic's Messages API as Claude Code drives it, on a 4k-context model: system
 * messages inside {@code messages}, {@code max_tokens: 32000} on every request, long tool results. Every follow-up
 * prefills only what is new, nothing is left out, and a full context says so in Anthropic's words.
 */
class AgentLoopTest {
    static final int CONTEXT = 4096;
    static final String TOOLS = "[{\"name\":\"Bash\",\"description\":\"Runs a shell command.\",\"input_schema\":"
            + "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"}},\"required\":[\"command\"]}}]";

    @TempDir
    Path dir;

    private TestServer start() {
        return builder().start();
    }

    private TestServer.Builder builder() {
        return TestServer.in(dir).model("m", Map.of("max_context_limit", Integer.toString(CONTEXT),
                        "reply_tokens", "20"))
                .sidecar("m", "context_length: " + CONTEXT + "\nfamily: qwen2.5\ncapabilities: {tools: true}\n");
    }

    /** Claude Code's side of the loop: the whole conversation every time, 32000 tokens asked for each answer. */
    private static final class Agent {
        private final TestServer server;
        private final ArrayNode messages = TestServer.JSON.createArrayNode();
        final List<TestServer.Reply> replies = new ArrayList<>();

        Agent(TestServer server) {
            this.server = server;
        }

        JsonNode user(String text) throws Exception {
            messages.addObject().put("role", "user").put("content", text);
            return send();
        }

        void system(String text) {
            messages.addObject().put("role", "system").put("content", text);
        }

        JsonNode toolResult(String text) throws Exception {
            JsonNode last = messages.get(messages.size() - 1);
            String id = last.path("content").get(last.path("content").size() - 1).path("id").asText();
            ObjectNode result = messages.addObject().put("role", "user");
            result.putArray("content").addObject().put("type", "tool_result").put("tool_use_id", id)
                    .put("content", text);
            return send();
        }

        private JsonNode send() throws Exception {
            ObjectNode body = TestServer.JSON.createObjectNode().put("model", "m").put("max_tokens", 32000);
            body.putArray("system").addObject().put("type", "text").put("text", "You are a coding agent.");
            body.set("tools", TestServer.JSON.readTree(TOOLS));
            body.set("messages", messages);
            Request request = new Request.Builder().url(server.url("/v1/messages"))
                    .header("x-api-key", "sk-ant-test").header("anthropic-version", "2023-06-01")
                    .header("anthropic-beta", "mid-conversation-system-2026-04-07")
                    .post(RequestBody.create(body.toString(), TestServer.JSON_TYPE)).build();
            try (Response r = server.client().newCall(request).execute()) {
                TestServer.Reply reply = new TestServer.Reply(r.code(), r.body().string(), r.headers().toMultimap());
                replies.add(reply);
                assertThat(reply.status()).as(reply.body()).isEqualTo(200);
                JsonNode answer = reply.json();
                ObjectNode assistant = messages.addObject().put("role", "assistant");
                assistant.set("content", answer.get("content"));
                return answer;
            }
        }
    }

    @Test
    void systemMessagesInsideMessagesStayInPlaceAndKeepTheCache() throws Exception {
        try (TestServer server = start()) {
            Agent agent = new Agent(server);
            agent.user("hello");
            agent.system("Agents available: explorer, planner.");
            JsonNode call = agent.user("Use Bash to list the files.");
            assertThat(call.get("stop_reason").asText()).isEqualTo("tool_use");
            JsonNode second = server.runs("m").getLast();
            assertThat(second.get("prefilled_text").asText())
                    .contains("System: Agents available: explorer, planner.")
                    .contains("Use Bash to list the files.")
                    .doesNotContain("hello")
                    .doesNotContain("You are a coding agent.");
            assertThat(call.at("/usage/cache_read_input_tokens").asInt()).isPositive();

            JsonNode done = agent.toolResult("README.md\nsrc\n");
            JsonNode third = server.runs("m").getLast();
            assertThat(third.get("role").asText()).isEqualTo("tool");
            assertThat(third.get("prefilled_text").asText()).contains("README.md").doesNotContain("Agents available");
            assertThat(done.at("/usage/cache_read_input_tokens").asInt())
                    .isEqualTo(second.get("cache_after").asInt());
        }
    }

    private static String request(String billing, String tools, String messages) {
        return "{\"model\":\"m\",\"max_tokens\":32000,\"system\":[{\"type\":\"text\",\"text\":"
                + "\"x-anthropic-billing-header: cc_version=2.1.197." + billing + "; cc_entrypoint=cli;\"},"
                + "{\"type\":\"text\",\"text\":\"You are a coding agent.\"}],\"tools\":" + tools
                + ",\"messages\":" + messages + "}";
    }

    @Test
    void perSessionBillingLinesAndToolOrderDoNotThrowTheCacheAway() throws Exception {
        String read = "{\"name\":\"Read\",\"input_schema\":{\"type\":\"object\",\"properties\":"
                + "{\"path\":{\"type\":\"string\"}}}}";
        String bash = TOOLS.substring(1, TOOLS.length() - 1);
        try (TestServer server = start()) {
            String first = "[{\"role\":\"user\",\"content\":\"hello\"}]";
            JsonNode one = server.postForReply("/v1/messages", request("3bb", "[" + bash + "," + read + "]", first))
                    .json();
            // the same conversation goes on with the tools listed the other way round
            String second = "[{\"role\":\"user\",\"content\":\"hello\"},{\"role\":\"assistant\",\"content\":"
                    + TestServer.JSON.writeValueAsString(one.at("/content/0/text").asText())
                    + "},{\"role\":\"user\",\"content\":\"go on\"}]";
            JsonNode two = server.postForReply("/v1/messages", request("3bb", "[" + read + "," + bash + "]", second))
                    .json();
            assertThat(two.at("/usage/cache_read_input_tokens").asInt()).as("tool order").isPositive();
            assertThat(server.runs("m").getLast().get("prefilled_text").asText()).doesNotContain("hello");

            // another session: another billing line, the same system prompt and tools, whose cache is kept
            TestServer.Reply other = server.postForReply("/v1/messages",
                    request("9f1", "[" + bash + "," + read + "]", "[{\"role\":\"user\",\"content\":\"new task\"}]"));
            assertThat(other.status()).isEqualTo(200);
            JsonNode clear = server.trace("m").stream().filter(t -> t.get("call").asText().equals("clear_kv_cache"))
                    .reduce((a, b) -> b).orElseThrow();
            assertThat(clear.get("keep_system_prompt").asInt()).isEqualTo(1);
            JsonNode run = server.runs("m").getLast();
            assertThat(run.get("prefilled_text").asText()).contains("new task").doesNotContain("You are a coding agent")
                    .doesNotContain("billing");
        }
    }

    @Test
    void aToolCallSentBackWithItsArgumentsInAnotherOrderIsStillTheCachedTurn() throws Exception {
        String tools = "[{\"name\":\"Bash\",\"input_schema\":{\"type\":\"object\",\"properties\":{"
                + "\"command\":{\"type\":\"string\"},\"timeout\":{\"type\":\"integer\"},"
                + "\"description\":{\"type\":\"string\"}},\"required\":[\"command\",\"timeout\",\"description\"]}}]";
        try (TestServer server = start()) {
            String ask = "[{\"role\":\"user\",\"content\":\"Use Bash to list the files.\"}]";
            JsonNode call = server.postForReply("/v1/messages", request("3bb", tools, ask)).json();
            JsonNode use = call.at("/content/0");
            assertThat(use.get("type").asText()).isEqualTo("tool_use");
            assertThat(use.get("input").size()).isEqualTo(3);
            // as Claude Code sends it back: its own key order
            ObjectNode reordered = TestServer.JSON.createObjectNode();
            List<String> names = new ArrayList<>();
            use.get("input").fieldNames().forEachRemaining(names::add);
            java.util.Collections.reverse(names);
            names.forEach(n -> reordered.set(n, use.get("input").get(n)));
            ObjectNode back = use.deepCopy();
            back.set("input", reordered);
            String followUp = "[{\"role\":\"user\",\"content\":\"Use Bash to list the files.\"},"
                    + "{\"role\":\"assistant\",\"content\":[" + back + "]},{\"role\":\"user\",\"content\":"
                    + "[{\"type\":\"tool_result\",\"tool_use_id\":\"" + use.get("id").asText() + "\",\"content\":"
                    + "\"a.txt\"}]}]";
            JsonNode done = server.postForReply("/v1/messages", request("3bb", tools, followUp)).json();
            assertThat(done.at("/usage/cache_read_input_tokens").asInt()).isPositive();
            assertThat(server.runs("m").getLast().get("prefilled_text").asText()).doesNotContain("list the files");
        }
    }

    /**
     * The loop issue 21 saw: a conversation sent again in full names the tool in its earlier turns. With the cache
     * off every request is such a flattened resend; the model answers the newest turn, so after the tool's result
     * it answers in prose and the agent's loop ends, and a later user turn that names no tool gets no call.
     */
    @Test
    void aFlattenedResendAnswersItsNewestTurnSoTheAgentLoopEnds() throws Exception {
        try (TestServer server = builder().set("cache.enabled", "false").start()) {
            Agent agent = new Agent(server);
            JsonNode call = agent.user("Use Bash to list the files.");
            assertThat(call.get("stop_reason").asText()).isEqualTo("tool_use");

            // the agent's side: results go back as long as the model calls tools (a looping model would go on)
            JsonNode answer = agent.toolResult("README.md\nsrc\n");
            int calls = 1;
            while (answer.get("stop_reason").asText().equals("tool_use") && calls < 5) {
                answer = agent.toolResult("README.md\nsrc\n");
                calls++;
            }
            assertThat(calls).as("tool calls in the loop").isEqualTo(1);
            assertThat(answer.get("stop_reason").asText()).isEqualTo("end_turn");
            assertThat(answer.at("/content/0/text").asText()).isEqualTo("The tool returned: \"README.md src\".");
            JsonNode resend = server.runs("m").getLast();
            assertThat(resend.get("cache_before").asInt()).as("nothing cached: a full resend").isZero();
            assertThat(resend.get("role").asText()).isEqualTo("user");
            assertThat(resend.get("prompt").asText()).startsWith("User: Use Bash to list the files.")
                    .contains("Assistant: <tool_call>\n{\"name\": \"Bash\"").endsWith("Tool result: README.md\nsrc");

            // a newest user turn that names no tool, after earlier turns that do: prose
            JsonNode thanks = agent.user("Thanks, that is all.");
            assertThat(thanks.get("stop_reason").asText()).isEqualTo("end_turn");
            assertThat(thanks.get("content")).hasSize(1);
            assertThat(thanks.at("/content/0/type").asText()).isEqualTo("text");
            assertThat(server.runs("m").getLast().get("prompt").asText()).contains("Bash")
                    .endsWith("User: Thanks, that is all.");

            // and one that names it again calls it again
            JsonNode again = agent.user("Now use Bash to show the date.");
            assertThat(again.get("stop_reason").asText()).isEqualTo("tool_use");
        }
    }

    @Test
    void maxTokensIsACeilingNotAReservation() throws Exception {
        try (TestServer server = start()) {
            Agent agent = new Agent(server);
            String output = "log line with some words in it\n".repeat(90);
            for (int round = 0; round < 3; round++) {
                JsonNode call = agent.user("Use Bash to read part " + round + " of the logs.");
                assertThat(call.get("stop_reason").asText()).isEqualTo("tool_use");
                JsonNode answer = agent.toolResult(output + "end of part " + round);
                assertThat(answer.at("/usage/cache_read_input_tokens").asInt()).as("round %d", round).isPositive();
            }
            int prompt = server.runs("m").getLast().get("cache_after").asInt();
            assertThat(prompt).as("the loop has outgrown half the context").isGreaterThan(CONTEXT / 2);
            for (TestServer.Reply reply : agent.replies) {
                assertThat(reply.header("X-RKLLM-Context-Trimmed")).isNull();
            }
            String budget = agent.replies.getLast().header("X-RKLLM-Max-Tokens");
            assertThat(budget).as("the answer's limit is cut, and said so").isNotNull().contains("max_tokens 32000");
            assertThat(Integer.parseInt(budget.substring(0, budget.indexOf(' ')))).isBetween(16, CONTEXT - prompt);
            assertThat(server.runs("m").stream().filter(r -> r.get("cache_before").asInt() == 0))
                    .as("only the first request starts from an empty cache").hasSize(1);
        }
    }

    @Test
    void aFullContextStopsWithModelContextWindowExceeded() throws Exception {
        try (TestServer server = start()) {
            Agent agent = new Agent(server);
            JsonNode answer = agent.user("[[tokens:6000]]");
            assertThat(answer.get("stop_reason").asText()).isEqualTo("model_context_window_exceeded");
            assertThat(answer.at("/usage/output_tokens").asInt()).isLessThan(CONTEXT);

            String body = "{\"model\":\"m\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":"
                    + "\"[[tokens:500]]\"}]}";
            TestServer.Reply limited = server.postForReply("/v1/messages", body);
            assertThat(limited.json().get("stop_reason").asText()).as("the client's own limit").isEqualTo("max_tokens");
            assertThat(limited.header("X-RKLLM-Max-Tokens")).isNull();
        }
    }

    @Test
    void aConversationEndingWithTheAssistantAndASystemNoteIsStillAPrefillAndRefused() throws Exception {
        try (TestServer server = start()) {
            TestServer.Reply reply = server.postForReply("/v1/messages", "{\"model\":\"m\",\"max_tokens\":100,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":"
                    + "\"hello\"},{\"role\":\"system\",\"content\":\"be brief\"}]}");
            assertThat(reply.status()).isEqualTo(400);
            assertThat(reply.json().at("/error/message").asText()).contains("not the assistant");
            assertThat(server.runs("m")).isEmpty();
        }
    }

    @Test
    void aPromptBeyondTheContextIsAnthropicsPromptTooLong() throws Exception {
        try (TestServer server = start()) {
            String body = "{\"model\":\"m\",\"max_tokens\":32000,\"messages\":[{\"role\":\"user\",\"content\":\""
                    + "word ".repeat(9000) + "\"}]}";
            TestServer.Reply reply = server.postForReply("/v1/messages", body);
            assertThat(reply.status()).isEqualTo(400);
            assertThat(reply.json().get("type").asText()).isEqualTo("error");
            assertThat(reply.json().at("/error/type").asText()).isEqualTo("invalid_request_error");
            assertThat(reply.json().at("/error/message").asText())
                    .matches("prompt is too long: \\d+ tokens > " + CONTEXT + " maximum\\..*");
        }
    }
}
