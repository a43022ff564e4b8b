package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.ffm.Abi;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * What reaches the runtime, seen through the simulated runtime's trace, as conversations go on:
 * follow-ups send only the new message; anything else clears and resends.
 */
class ConversationCacheTest {
    @TempDir
    Path dir;

    /** A client-side conversation, as Open WebUI keeps it. */
    static final class Chat {
        private final TestServer server;
        private final ArrayNode messages = TestServer.JSON.createArrayNode();
        private final String model;
        JsonNode last;

        Chat(TestServer server, String model, String system) {
            this.server = server;
            this.model = model;
            if (system != null) {
                messages.addObject().put("role", "system").put("content", system);
            }
        }

        /** Sends the user message, keeps the answer in the history, returns the response body. */
        JsonNode say(String text) throws Exception {
            messages.addObject().put("role", "user").put("content", text);
            ObjectNode body = TestServer.JSON.createObjectNode().put("model", model);
            body.set("messages", messages);
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", body.toString());
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            last = reply.json();
            messages.addObject().put("role", "assistant")
                    .put("content", last.at("/choices/0/message/content").asText());
            return last;
        }

        void editUserMessage(int index, String text) {
            int seen = 0;
            for (JsonNode m : messages) {
                if (m.get("role").asText().equals("user") && seen++ == index) {
                    ((ObjectNode) m).put("content", text);
                }
            }
        }

        /** Removes the last exchange (what Open WebUI does before regenerating an answer). */
        String dropLastExchange() {
            messages.remove(messages.size() - 1);
            String user = messages.get(messages.size() - 1).get("content").asText();
            messages.remove(messages.size() - 1);
            return user;
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aFollowUpTurnPrefillsOnlyTheNewMessage(Abi abi) throws Exception {
        try (TestServer server = TestServer.in(dir).abi(abi).model("m", Map.of()).start()) {
            Chat chat = new Chat(server, "m", "You are terse.");
            chat.say("What is an NPU?");
            JsonNode second = chat.say("And how fast is it?");
            List<JsonNode> runs = server.runs("m");
            JsonNode run = runs.get(1);
            assertThat(run.get("prompt").asText()).isEqualTo("And how fast is it?");
            assertThat(run.get("keep_history").asInt()).isEqualTo(1);
            assertThat(run.get("cache_before").asInt()).isEqualTo(runs.get(0).get("cache_after").asInt());
            assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").asInt())
                    .isEqualTo(run.get("cache_before").asInt());
            assertThat(second.at("/usage/prompt_tokens").asInt())
                    .isEqualTo(run.get("cache_before").asInt() + run.get("prefill_tokens").asInt());
            assertThat(second.at("/timings/prompt_n").asInt()).isEqualTo(run.get("prefill_tokens").asInt());
            assertThat(second.at("/timings/cache_n").asInt()).isEqualTo(run.get("cache_before").asInt());
            assertThat(server.trace("m").stream().filter(t -> t.get("call").asText().equals("clear_kv_cache"))
                    .count()).isEqualTo(1);
            chat.say("Thanks!");
            assertThat(server.runs("m").get(2).get("prompt").asText()).isEqualTo("Thanks!");
        }
    }

    @Test
    void thinkingRepliesAreMatchedWithoutTheirReasoning() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("thinking", "1"))
                .sidecar("m", "family: qwen3\ncapabilities: {thinking: true}\n").start()) {
            Chat chat = new Chat(server, "m", null);
            JsonNode first = chat.say("Why is the sky blue?");
            assertThat(first.at("/choices/0/message/reasoning_content").asText()).isNotEmpty();
            chat.say("Is it the same on Mars?");
            assertThat(server.runs("m").get(1).get("prompt").asText()).isEqualTo("Is it the same on Mars?");
        }
    }

    @Test
    void anEditedMessageClearsTheCacheKeepingTheSystemPromptAndResendsEverything() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).sidecar("m", "family: qwen2.5\n").start()) {
            Chat chat = new Chat(server, "m", "You are terse.");
            chat.say("What is an NPU?");
            chat.say("How fast is it?");
            chat.editUserMessage(0, "What is a GPU?");
            chat.say("And its power draw?");
            JsonNode run = server.runs("m").get(2);
            assertThat(run.get("prompt").asText()).startsWith("User: What is a GPU?").endsWith("User: And its power draw?");
            JsonNode clear = server.trace("m").stream().filter(t -> t.get("call").asText().equals("clear_kv_cache"))
                    .toList().getLast();
            assertThat(clear.get("keep_system_prompt").asInt()).isEqualTo(1);
            assertThat(run.get("cache_before").asInt()).isPositive();
            assertThat(run.get("prefilled_text").asText()).doesNotContain("You are terse.");
        }
    }

    @Test
    void regeneratingAnAnswerResendsTheConversation() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            Chat chat = new Chat(server, "m", null);
            chat.say("Name a colour.");
            chat.say("Another one?");
            String again = chat.dropLastExchange();
            chat.say(again);
            JsonNode run = server.runs("m").get(2);
            assertThat(run.get("prompt").asText()).contains("User: Name a colour.").endsWith("User: Another one?");
            chat.say("Thanks");
            assertThat(server.runs("m").get(3).get("prompt").asText()).isEqualTo("Thanks");
        }
    }

    @Test
    void aNewSystemPromptClearsEverythingAndSetsTheTemplate() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).sidecar("m", "family: qwen2.5\n").start()) {
            new Chat(server, "m", "You are a pirate.").say("Hello");
            new Chat(server, "m", "You are a poet.").say("Hello");
            List<JsonNode> clears = server.trace("m").stream()
                    .filter(t -> t.get("call").asText().equals("clear_kv_cache")).toList();
            assertThat(clears.getLast().get("keep_system_prompt").asInt()).isZero();
            JsonNode template = server.trace("m").stream()
                    .filter(t -> t.get("call").asText().equals("set_chat_template")).toList().getLast();
            assertThat(template.get("system_prompt").asText()).contains("You are a poet.");
            assertThat(server.runs("m").get(1).get("prefilled_text").asText()).contains("You are a poet.");
        }
    }

    @Test
    void twoSlotsKeepTwoInterleavedChatsCached() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("cache.slots", "2").start()) {
            Chat a = new Chat(server, "m", null);
            Chat b = new Chat(server, "m", null);
            a.say("Chat A, first question");
            b.say("Chat B, first question");
            a.say("Chat A, second question");
            b.say("Chat B, second question");
            List<JsonNode> runs = server.runs("m");
            assertThat(runs.get(2).get("prompt").asText()).isEqualTo("Chat A, second question");
            assertThat(runs.get(3).get("prompt").asText()).isEqualTo("Chat B, second question");
            assertThat(runs.get(2).get("handle").asInt()).isEqualTo(runs.get(0).get("handle").asInt());
            assertThat(runs.get(3).get("handle").asInt()).isEqualTo(runs.get(1).get("handle").asInt())
                    .isNotEqualTo(runs.get(0).get("handle").asInt());
        }
    }

    @Test
    void theSecondSlotLoadsWhenASecondConversationNeedsIt() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger("io.rkllm.server.backend.rkllm.Slots");
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        Level level = logger.getLevel();
        logger.setLevel(Level.INFO);
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("cache.slots", "2").start()) {
            Chat a = new Chat(server, "m", null);
            Chat b = new Chat(server, "m", null);
            a.say("Chat A, first question");
            a.say("Chat A, second question");
            assertThat(inits(server)).as("one conversation, one slot").isEqualTo(1);
            assertThat(server.getForReply("/api/ps").json().at("/models/0/size").asLong())
                    .isEqualTo(server.getForReply("/api/tags").json().at("/models/0/size").asLong());
            b.say("Chat B, first question");
            assertThat(inits(server)).isEqualTo(2);
            assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage)
                    .containsExactly("loading model m: slot 2 of 2 for another conversation");
            a.say("Chat A, third question");
            b.say("Chat B, second question");
            assertThat(inits(server)).isEqualTo(2);
            List<JsonNode> runs = server.runs("m");
            assertThat(runs.get(3).get("prompt").asText()).isEqualTo("Chat A, third question");
            assertThat(runs.get(4).get("prompt").asText()).isEqualTo("Chat B, second question");
        } finally {
            logger.detachAppender(log);
            logger.setLevel(level);
        }
    }

    @Test
    void aSecondSlotThatCannotLoadLeavesTheModelServingOnOne() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("fault", "max_handles=1"))
                .set("cache.slots", "2").start()) {
            Chat a = new Chat(server, "m", null);
            Chat b = new Chat(server, "m", null);
            a.say("Chat A, first question");
            b.say("Chat B, first question");
            a.say("Chat A, second question");
            assertThat(server.runs("m")).extracting(r -> r.get("handle").asInt()).containsOnly(
                    server.runs("m").getFirst().get("handle").asInt());
            assertThat(server.runs("m").get(2).get("prompt").asText()).startsWith("User: Chat A, first question");
        }
    }

    private static long inits(TestServer server) {
        return server.trace("m").stream().filter(t -> t.get("call").asText().equals("init")).count();
    }

    @Test
    void aRegeneratedAnswerIsResentOnItsChatsSlotNotOverTheOtherChat() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("cache.slots", "2").start()) {
            Chat a = new Chat(server, "m", null);
            Chat b = new Chat(server, "m", null);
            b.say("Chat B, first question");
            a.say("Chat A, first question");
            a.say("Chat A, second question");
            // B's slot is the least recently used, but A's regenerate belongs on A's slot
            a.say(a.dropLastExchange());
            b.say("Chat B, second question");
            List<JsonNode> runs = server.runs("m");
            assertThat(runs.get(3).get("handle").asInt()).isEqualTo(runs.get(1).get("handle").asInt());
            assertThat(runs.get(4).get("prompt").asText()).isEqualTo("Chat B, second question");
        }
    }

    @Test
    void oneSlotResendsWhenChatsInterleave() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            Chat a = new Chat(server, "m", null);
            Chat b = new Chat(server, "m", null);
            a.say("Chat A, first question");
            b.say("Chat B, first question");
            a.say("Chat A, second question");
            assertThat(server.runs("m").get(2).get("prompt").asText()).startsWith("User: Chat A, first question");
        }
    }

    @Test
    void openWebUiTasksBetweenTurnsLeaveTheChatCached() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            Chat chat = new Chat(server, "m", null);
            chat.say("What is an NPU?");
            String history = "<chat_history>\nUSER: What is an NPU?\nASSISTANT: "
                    + chat.last.at("/choices/0/message/content").asText() + "\n</chat_history>";
            TestServer.Reply title = server.postForReply("/v1/chat/completions", task(
                    "### Task:\nGenerate a concise, 3-5 word title with an emoji summarizing the chat history.\n"
                            + "### Output:\nJSON format: { \"title\": \"your concise title here\" }\n" + history));
            assertThat(TestServer.JSON.readTree(title.json().at("/choices/0/message/content").asText())
                    .get("title").asText()).isEqualTo("What Is An NPU");
            TestServer.Reply tags = server.postForReply("/v1/chat/completions", task(
                    "### Task:\nGenerate 1-3 broad tags categorizing the main themes of the chat history.\n"
                            + "### Output:\nJSON format: { \"tags\": [\"tag1\", \"tag2\", \"tag3\"] }\n" + history));
            JsonNode tagJson = TestServer.JSON.readTree(tags.json().at("/choices/0/message/content").asText());
            assertThat(tagJson.get("tags").isArray()).isTrue();
            TestServer.Reply queries = server.postForReply("/v1/chat/completions", task(
                    "### Task:\nAnalyze the chat history to determine the necessity of generating search queries.\n"
                            + "### Output:\nJSON format: { \"queries\": [\"query1\"] }\n" + history));
            assertThat(TestServer.JSON.readTree(queries.json().at("/choices/0/message/content").asText())
                    .get("queries").get(0).asText()).isEqualTo("What is an NPU?");
            chat.say("How fast is it?");

            List<JsonNode> runs = server.runs("m");
            // title and queries are answered without inference; tags ran next to the chat with keep_history=0
            assertThat(runs).hasSize(3);
            JsonNode tagRun = runs.get(1);
            assertThat(tagRun.get("keep_history").asInt()).isZero();
            assertThat(tagRun.get("enable_thinking").asBoolean()).isFalse();
            assertThat(tagRun.get("cache_after").asInt()).isEqualTo(runs.get(0).get("cache_after").asInt());
            assertThat(runs.get(2).get("prompt").asText()).isEqualTo("How fast is it?");
        }
    }

    @Test
    void aConfiguredTaskModelTakesTheTasksAndLeavesTheChatModelAlone() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).model("small", Map.of())
                .set("tasks.model", "small").set("models.max_loaded", "2").start()) {
            Chat chat = new Chat(server, "m", null);
            chat.say("What is an NPU?");
            TestServer.Reply tags = server.postForReply("/v1/chat/completions", task(
                    "### Task:\nGenerate 1-3 broad tags categorizing the main themes of the chat history.\n"
                            + "### Output:\nJSON format: { \"tags\": [\"tag1\"] }\n<chat_history>\nUSER: What is an NPU?"
                            + "\n</chat_history>"));
            assertThat(tags.status()).isEqualTo(200);
            assertThat(tags.json().get("model").asText()).isEqualTo("small");
            chat.say("How fast is it?");
            assertThat(server.runs("small")).hasSize(1);
            assertThat(server.runs("m")).hasSize(2);
            assertThat(server.runs("m").get(1).get("prompt").asText()).isEqualTo("How fast is it?");
        }
    }

    @Test
    void anOverlongConversationIsTrimmedFromTheOldestTurnsAndStaysIncremental() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("max_context_limit", "512", "reply_tokens", "30"))
                .sidecar("m", "context_length: 512\nfamily: qwen2.5\n").set("generation.reserved_output_tokens", "64")
                .start()) {
            Chat chat = new Chat(server, "m", "Keep this system prompt.");
            for (int i = 0; i < 8; i++) {
                chat.say("Question number " + i + " " + "with some padding words ".repeat(6));
            }
            List<JsonNode> runs = server.runs("m");
            assertThat(runs).allSatisfy(r -> assertThat(r.get("result").asText()).isEqualTo("finish"));
            JsonNode trimmed = runs.stream().filter(r -> r.get("prompt").asText().startsWith("User: Question number")
                    && !r.get("prompt").asText().startsWith("User: Question number 0")).findFirst().orElseThrow();
            assertThat(trimmed.get("prompt").asText()).doesNotContain("Question number 0");
            // the system prompt survives trimming: kept in the cache, or sent again with the template
            assertThat(trimmed.get("cache_before").asInt() > 0
                    || trimmed.get("prefilled_text").asText().contains("Keep this system prompt.")).isTrue();
            assertThat(runs.getLast().get("cache_after").asInt()).isLessThanOrEqualTo(512);
        }
    }

    @Test
    void afterTheModelIsReloadedTheConversationIsResent() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            Chat chat = new Chat(server, "m", null);
            chat.say("Remember the number 7.");
            assertThat(server.postForReply("/v1/models/m/unload", "").status()).isEqualTo(200);
            chat.say("Which number?");
            JsonNode run = server.runs("m").get(1);
            assertThat(run.get("cache_before").asInt()).isZero();
            assertThat(run.get("prompt").asText()).startsWith("User: Remember the number 7.");
            chat.say("Thanks");
            assertThat(server.runs("m").get(2).get("prompt").asText()).isEqualTo("Thanks");
        }
    }

    @Test
    void withTheCacheDisabledEveryRequestIsAFullResend() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("cache.enabled", "false").start()) {
            Chat chat = new Chat(server, "m", null);
            chat.say("One");
            JsonNode second = chat.say("Two");
            JsonNode run = server.runs("m").get(1);
            assertThat(run.get("prompt").asText()).startsWith("User: One");
            assertThat(run.get("cache_before").asInt()).isZero();
            assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isZero();
        }
    }

    private static String task(String content) throws Exception {
        ObjectNode body = TestServer.JSON.createObjectNode().put("model", "m").put("stream", false);
        body.putArray("messages").addObject().put("role", "user").put("content", content);
        return body.toString();
    }
}
