package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chats that outgrow the context, seen through the simulated runtime's trace: what reached the runtime at an
 * overflow, on the turns after it and at the next overflow; an edit, a regenerated answer and a switch to another
 * chat in a long chat; agent loops with tool calls. A 1,024-token model with 128 tokens reserved for the answer,
 * so a chat overflows after about eight turns.
 */
class LongConversationTest {
    private static final int CONTEXT = 1024;
    private static final int RESERVE = 128;
    private static final String TOOLS = "[{\"type\":\"function\",\"function\":{\"name\":\"lookup\",\"parameters\":"
            + "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"}}}}}]";

    @TempDir
    Path dir;

    private TestServer start() {
        return TestServer.in(dir).model("m", Map.of("max_context_limit", Integer.toString(CONTEXT),
                        "reply_tokens", "40"))
                .sidecar("m", "context_length: " + CONTEXT + "\nfamily: qwen2.5\ncapabilities: {tools: true}\n")
                .set("generation.reserved_output_tokens", Integer.toString(RESERVE)).start();
    }

    /** A client's copy of a conversation; each turn sends all of it and keeps the answer. */
    private static final class Chat {
        private final TestServer server;
        private final ArrayNode messages = TestServer.JSON.createArrayNode();
        private final boolean tools;
        /** The X-RKLLM-Context-Trimmed header of each turn ("" when absent). */
        final List<String> trimmed = new ArrayList<>();
        JsonNode last;

        Chat(TestServer server, String system, boolean tools) {
            this.server = server;
            this.tools = tools;
            messages.addObject().put("role", "system").put("content", system);
        }

        JsonNode say(String text) throws Exception {
            messages.addObject().put("role", "user").put("content", text);
            return send();
        }

        JsonNode toolResult(String text) throws Exception {
            String id = messages.get(messages.size() - 1).at("/tool_calls/0/id").asText();
            messages.addObject().put("role", "tool").put("tool_call_id", id).put("content", text);
            return send();
        }

        /** Sends the conversation as it is; the answer (text or tool calls) goes into it. */
        JsonNode send() throws Exception {
            ObjectNode body = TestServer.JSON.createObjectNode().put("model", "m");
            body.set("messages", messages);
            if (tools) {
                body.set("tools", TestServer.JSON.readTree(TOOLS));
            }
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", body.toString());
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            trimmed.add(reply.header("X-RKLLM-Context-Trimmed") == null ? "" : reply.header("X-RKLLM-Context-Trimmed"));
            last = reply.json();
            JsonNode message = last.at("/choices/0/message");
            ObjectNode answer = messages.addObject().put("role", "assistant").put("content", message.path("content")
                    .asText(""));
            if (message.has("tool_calls")) {
                answer.set("tool_calls", message.get("tool_calls"));
            }
            return last;
        }

        void editUser(int index, String text) {
            int seen = 0;
            for (JsonNode m : messages) {
                if (m.get("role").asText().equals("user") && seen++ == index) {
                    ((ObjectNode) m).put("content", text);
                }
            }
        }

        /** Removes the last exchange (Open WebUI before regenerating an answer), returning the question. */
        String dropLastExchange() {
            messages.remove(messages.size() - 1);
            String user = messages.get(messages.size() - 1).get("content").asText();
            messages.remove(messages.size() - 1);
            return user;
        }

        void removeLast() {
            messages.remove(messages.size() - 1);
        }
    }

    /** A user message of about 60 tokens, numbered. */
    private static String question(int n) {
        return "Question " + n + ": " + "what does the board do with its memory when the chat runs long ".repeat(4)
                .strip();
    }

    /** A run that sent history again: the cache was cleared before it, down to the system prompt at most. */
    private static boolean resent(JsonNode run) {
        return run.get("prompt").asText().startsWith("User: ");
    }

    private static int leftOut(String header) {
        return header.isEmpty() ? 0 : Integer.parseInt(header.substring(0, header.indexOf(' ')));
    }

    /** Chats until the first overflow; returns the number of the last question. */
    private static int untilTheFirstOverflow(Chat chat, TestServer server) throws Exception {
        int n = 0;
        do {
            chat.say(question(++n));
        } while (n < 2 || !resent(server.runs("m").getLast()));
        return n;
    }

    @Test
    void anOverflowLeavesOutOldExchangesOnceAndTheTurnsAfterItSendOnlyTheirMessage() throws Exception {
        try (TestServer server = start()) {
            Chat chat = new Chat(server, "Keep this system prompt.", false);
            for (int n = 1; n <= 30; n++) {
                chat.say(question(n));
            }
            List<JsonNode> runs = server.runs("m");
            assertThat(runs).hasSize(30).allSatisfy(r -> {
                assertThat(r.get("result").asText()).isEqualTo("finish");
                assertThat(r.get("finish_reason").asText()).isEqualTo("eos");
                assertThat(r.get("keep_history").asInt()).isEqualTo(1);
                assertThat(r.get("cache_after").asInt()).isLessThanOrEqualTo(CONTEXT);
            });
            List<Integer> overflows = new ArrayList<>();
            for (int i = 1; i < runs.size(); i++) {
                JsonNode run = runs.get(i);
                if (resent(run)) {
                    overflows.add(i);
                    continue;
                }
                // between overflows: only the new message, on top of what the previous turn left in the cache
                assertThat(run.get("prompt").asText()).isEqualTo(question(i + 1));
                assertThat(run.get("cache_before").asInt()).isEqualTo(runs.get(i - 1).get("cache_after").asInt());
                assertThat(chat.trimmed.get(i)).isEqualTo(chat.trimmed.get(i - 1));
            }
            assertThat(overflows).as("three overflows or more in 30 turns").hasSizeGreaterThanOrEqualTo(3);
            int before = 0;
            for (int k = 0; k < overflows.size(); k++) {
                int i = overflows.get(k);
                JsonNode run = runs.get(i);
                int left = leftOut(chat.trimmed.get(i));
                assertThat(left).as("each overflow leaves out more, whole exchanges").isGreaterThan(before).isEven();
                assertThat(chat.trimmed.get(i)).isEqualTo(left + " earliest messages left out");
                // what reached the runtime: the kept exchanges from the first kept question, the new one last
                assertThat(run.get("prompt").asText()).startsWith("User: " + question(left / 2 + 1))
                        .doesNotContain(question(left / 2) + "\n").endsWith("User: " + question(i + 1));
                // the system prompt's entries were kept by the clear and not sent again
                assertThat(run.get("cache_before").asInt()).isPositive();
                assertThat(run.get("prefilled_text").asText()).doesNotContain("Keep this system prompt.");
                // one large step: the resent conversation fills about half of the room for the prompt
                assertThat(run.get("cache_before").asInt() + run.get("prefill_tokens").asInt())
                        .isLessThanOrEqualTo((CONTEXT - RESERVE) / 2);
                if (k > 0) {
                    assertThat(i - overflows.get(k - 1)).as("turns from one overflow to the next").isGreaterThan(2);
                }
                before = left;
            }
            List<JsonNode> clears = server.trace("m").stream()
                    .filter(t -> t.get("call").asText().equals("clear_kv_cache")).toList();
            assertThat(clears).as("the first turn's clear, then one per overflow").hasSize(1 + overflows.size());
            assertThat(clears.subList(1, clears.size())).allSatisfy(c ->
                    assertThat(c.get("keep_system_prompt").asInt()).isEqualTo(1));
        }
    }

    @Test
    void anEditInALongChatResendsItWithTheSameMessagesLeftOut() throws Exception {
        try (TestServer server = start()) {
            Chat chat = new Chat(server, "You are terse.", false);
            int n = untilTheFirstOverflow(chat, server);
            chat.say(question(++n));
            String header = chat.trimmed.getLast();
            int firstKept = leftOut(header) / 2;
            chat.removeLast();
            chat.removeLast();
            chat.editUser(firstKept, "An edited question, still kept.");
            chat.say(question(n));
            JsonNode edited = server.runs("m").getLast();
            assertThat(edited.get("prompt").asText()).startsWith("User: An edited question, still kept.")
                    .endsWith("User: " + question(n));
            assertThat(chat.trimmed.getLast()).isEqualTo(header);
            chat.say(question(++n));
            assertThat(server.runs("m").getLast().get("prompt").asText()).isEqualTo(question(n));
            assertThat(chat.trimmed.getLast()).isEqualTo(header);
        }
    }

    @Test
    void aRegeneratedAnswerInALongChatKeepsTheSameMessagesLeftOut() throws Exception {
        try (TestServer server = start()) {
            Chat chat = new Chat(server, "You are terse.", false);
            int n = untilTheFirstOverflow(chat, server);
            chat.say(question(++n));
            String header = chat.trimmed.getLast();
            chat.say(chat.dropLastExchange());
            JsonNode regenerated = server.runs("m").getLast();
            assertThat(regenerated.get("prompt").asText()).startsWith("User: " + question(leftOut(header) / 2 + 1))
                    .endsWith("User: " + question(n));
            assertThat(chat.trimmed.getLast()).isEqualTo(header);
            chat.say(question(++n));
            assertThat(server.runs("m").getLast().get("prompt").asText()).isEqualTo(question(n));
        }
    }

    @Test
    void aLongChatComingBackFromAnotherChatIsResentWithWhatItHadLeftOut() throws Exception {
        try (TestServer server = start()) {
            Chat a = new Chat(server, "You are chat A.", false);
            int n = untilTheFirstOverflow(a, server);
            a.say(question(++n));
            String header = a.trimmed.getLast();
            new Chat(server, "You are chat B.", false).say("Chat B, a short question.");
            a.say(question(++n));
            JsonNode back = server.runs("m").getLast();
            assertThat(back.get("prompt").asText()).startsWith("User: " + question(leftOut(header) / 2 + 1))
                    .endsWith("User: " + question(n));
            assertThat(back.get("prefilled_text").asText()).contains("You are chat A.");
            assertThat(a.trimmed.getLast()).as("nothing more forgotten because of the switch").isEqualTo(header);
            a.say(question(++n));
            assertThat(server.runs("m").getLast().get("prompt").asText()).isEqualTo(question(n));
        }
    }

    @Test
    void manyShortAgentTurnsKeepToolCallsWithTheirResultsAndGoOnIncrementally() throws Exception {
        try (TestServer server = start()) {
            Chat chat = new Chat(server, "You answer with tools.", true);
            for (int n = 1; n <= 12; n++) {
                JsonNode call = chat.say("Please lookup item " + n + ", " + "with its figures ".repeat(6).strip());
                assertThat(call.at("/choices/0/finish_reason").asText()).isEqualTo("tool_calls");
                chat.toolResult("Item " + n + ": " + "12 34 56 78 ".repeat(8).strip());
            }
            List<JsonNode> runs = server.runs("m");
            assertThat(runs).hasSize(24).allSatisfy(r -> assertThat(r.get("result").asText()).isEqualTo("finish"));
            int resends = 0;
            for (int i = 2; i < runs.size(); i++) {
                JsonNode run = runs.get(i);
                int n = i / 2 + 1;
                boolean toolTurn = i % 2 == 1;
                String prompt = run.get("prompt").asText();
                if (!resent(run)) {
                    // on top of the cache: the new message alone, a tool result with the role tool
                    assertThat(run.get("role").asText()).isEqualTo(toolTurn ? "tool" : "user");
                    assertThat(run.get("cache_before").asInt()).isEqualTo(runs.get(i - 1).get("cache_after").asInt());
                    continue;
                }
                resends++;
                assertThat(resent(runs.get(i - 1))).as("no two turns in a row resend").isFalse();
                String header = chat.trimmed.get(i);
                // (a resend may also leave nothing out: the cache holds the chat template's tokens of every
                // message, the flattened resend fewer, so it can have room for more turns without trimming)
                assertThat(header).matches("|[0-9]+ earliest messages left out");
                // whole exchanges (question, call, result, answer) are left out; the call being answered stays
                assertThat(leftOut(header) % 4).isZero();
                assertThat(prompt).startsWith("User: Please lookup item " + (leftOut(header) / 4 + 1) + ",");
                if (toolTurn) {
                    assertThat(prompt).contains("Please lookup item " + n + ",").contains("<tool_call>")
                            .endsWith("Tool result: Item " + n + ": " + "12 34 56 78 ".repeat(8).strip());
                }
            }
            assertThat(resends).as("the loop overflowed").isPositive();
        }
    }

    @Test
    void aLongAgentLoopLeavesOutItsOldestToolRoundsAndKeepsItsQuestion() throws Exception {
        try (TestServer server = start()) {
            Chat chat = new Chat(server, "You answer with tools.", true);
            // a loop the client ran elsewhere: one question and twelve tool rounds, more than the context holds
            chat.messages.addObject().put("role", "user").put("content", "Please lookup every figure, one by one.");
            for (int r = 1; r <= 12; r++) {
                ObjectNode call = chat.messages.addObject().put("role", "assistant").put("content", "");
                call.putArray("tool_calls").addObject().put("id", "call_" + r).put("type", "function")
                        .putObject("function").put("name", "lookup").put("arguments", "{\"query\": \"figure " + r + "\"}");
                chat.messages.addObject().put("role", "tool").put("tool_call_id", "call_" + r)
                        .put("content", "Figure " + r + ": " + "12 34 56 78 ".repeat(10).strip());
            }
            chat.send();
            JsonNode run = server.runs("m").getLast();
            String header = chat.trimmed.getLast();
            assertThat(header).endsWith("earlier messages left out (the newest question kept)");
            assertThat(run.get("prompt").asText()).startsWith("User: Please lookup every figure, one by one.")
                    .doesNotContain("Figure 1:").contains("\"figure 12\"").endsWith("Tool result: Figure 12: "
                            + "12 34 56 78 ".repeat(10).strip());
            assertThat(leftOut(header) % 2).as("whole rounds: each call with its result").isZero();
            // the newest turn is a tool result: the model answers it (a call again would loop the agent)
            assertThat(chat.last.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
            assertThat(chat.last.at("/choices/0/message/content").asText()).startsWith("The tool returned: \"Figure 12:");
            // the next round goes on from the cache, the same rounds left out
            assertThat(chat.say("Please lookup figure 13.").at("/choices/0/finish_reason").asText())
                    .isEqualTo("tool_calls");
            assertThat(server.runs("m").getLast().get("prompt").asText()).isEqualTo("Please lookup figure 13.");
            chat.toolResult("Figure 13: done.");
            JsonNode next = server.runs("m").getLast();
            assertThat(next.get("role").asText()).isEqualTo("tool");
            assertThat(next.get("prompt").asText()).isEqualTo("Figure 13: done.");
            assertThat(chat.trimmed.getLast()).isEqualTo(header);
        }
    }
}
