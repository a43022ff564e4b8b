package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GGUF model whose conversations each have a KV cache of their own ({@code engines.llama.kv_cache:
 * per_conversation}, as llama-server's slots): follow-ups reuse what their cache holds, a background task starts from
 * a chat's prefix (llama.cpp copies between caches only whole sequences: the binding copies and cuts), more chats
 * than caches take turns, and the same question gets the same greedy answer whatever the other caches hold.
 */
class LlamaOwnCachesTest {
    @TempDir
    static Path dir;
    static LlamaTestServer server;

    @BeforeAll
    static void start() {
        server = LlamaTestServer.in(dir).model("tiny", TinyLlama.Options.chat()).parallel(2)
                .set("engines.llama.kv_cache", "per_conversation").start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static LlamaFollowUpTest.Turn send(List<String> messages) throws Exception {
        String body = "{\"model\":\"tiny\",\"temperature\":0,\"max_tokens\":16,\"messages\":["
                + String.join(",", messages) + "]}";
        return LlamaFollowUpTest.Turn.of(LlamaChatTest.ok(server.post("/v1/chat/completions", body)));
    }

    @Test
    void theModelListSaysHowItsConversationsHoldTheirCache() throws Exception {
        assertThat(server.get("/v1/models").json().at("/data/0/gguf/kv_cache").asText()).isEqualTo("per_conversation");
        try (LlamaTestServer shared = LlamaTestServer.in(dir.resolve("shared")).model("tiny", TinyLlama.Options.chat())
                .start()) {
            // auto, the memory unknown: one shared cache
            assertThat(shared.get("/v1/models").json().at("/data/0/gguf/kv_cache").asText()).isEqualTo("shared");
        }
    }

    @Test
    void followUpsReuseTheirCacheAndATaskStartsFromTheChatsPrefix() throws Exception {
        List<String> messages = new ArrayList<>(List.of(LlamaChatTest.user("Tell me about the board, please.")));
        LlamaFollowUpTest.Turn one = send(messages);
        messages.add(LlamaChatTest.assistant(one.answer()));
        messages.add(LlamaChatTest.user("And its memory?"));
        LlamaFollowUpTest.Turn two = send(messages);
        assertThat(two.cached()).as("the first turn's prompt and answer").isGreaterThanOrEqualTo(one.prompt());

        String history = "<chat_history>\nUSER: Tell me about the board, please.\nASSISTANT: " + one.answer()
                + "\n</chat_history>";
        LlamaFollowUpTest.Turn tags = send(List.of(LlamaChatTest.user("### Task:\nGenerate 1-3 broad tags categorizing"
                + " the main themes of the chat history.\n" + history)));
        assertThat(tags.completion()).isPositive();

        messages.add(LlamaChatTest.assistant(two.answer()));
        messages.add(LlamaChatTest.user("Thanks."));
        LlamaFollowUpTest.Turn three = send(messages);
        assertThat(three.cached()).as("the task left the chat's cache alone").isGreaterThanOrEqualTo(two.prompt());
    }

    @Test
    void moreChatsThanCachesTakeTurnsAndAllEnd() throws Exception {
        List<CompletableFuture<LlamaFollowUpTest.Turn>> chats = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String question = "Chat " + i + ": what is an NPU?";
            chats.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return send(List.of(LlamaChatTest.user(question)));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        for (CompletableFuture<LlamaFollowUpTest.Turn> chat : chats) {
            assertThat(chat.get().completion()).isPositive();
        }
    }

    @Test
    void theSameQuestionGetsTheSameAnswerWhateverTheOtherCachesHold() throws Exception {
        String question = LlamaChatTest.user("Which board is this?");
        LlamaFollowUpTest.Turn first = send(List.of(question));
        for (int i = 0; i < 3; i++) {
            send(List.of(LlamaChatTest.user("Something else, number " + i + ", with more words than before.")));
            assertThat(send(List.of(question)).answer()).isEqualTo(first.answer());
        }
    }
}
