package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One estimate of a model's memory (memory_mb of its model.yaml, else 1.3 times its file per handle; a vision
 * model's encoder 1.3 times its .rknn) serves both the cap on what stays loaded ({@code models.max_memory}) and the
 * check before each init ({@code models.memory_check}), for the first slot, a slot loaded on demand and an encoder.
 */
class ModelMemoryLimitsTest {
    @TempDir
    Path dir;

    private static List<String> loaded(TestServer server) throws Exception {
        return server.getForReply("/health").json().get("loaded_models").findValuesAsText("id");
    }

    private static void chat(TestServer server, String model) throws Exception {
        TestServer.Reply reply = server.postForReply("/v1/chat/completions", VisionTest.chat(model,
                VisionTest.text("user", "Hi.")));
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    }

    private static void embed(TestServer server) throws Exception {
        assertThat(server.postForReply("/v1/embeddings", EmbeddingsApiTest.body("\"hi\"", "")).status())
                .isEqualTo(200);
    }

    private TestServer.Builder chatAndEmbedding(Path in, String maxMemory) {
        return TestServer.in(in).model("m", Map.of()).sidecar("m", "memory_mb: 3000\n")
                .model("e", EmbeddingsApiTest.EMBEDDING).sidecar("e", EmbeddingsApiTest.SIDECAR + "memory_mb: 2000\n")
                .set("models.max_memory", maxMemory).set("models.memory_check", "off");
    }

    @Test
    void maxMemoryCountsTheMemoryTheSidecarsState() throws Exception {
        try (TestServer server = chatAndEmbedding(dir.resolve("small"), "4G").start()) {
            chat(server, "m");
            embed(server);
            assertThat(loaded(server)).as("3000 + 2000 MB is beyond 4 GB").containsExactly("e");
        }
        try (TestServer server = chatAndEmbedding(dir.resolve("large"), "5000M").start()) {
            chat(server, "m");
            embed(server);
            assertThat(loaded(server)).containsExactly("m", "e");
        }
    }

    private static long inits(TestServer server, String model) {
        return server.trace(model).stream().filter(t -> t.get("call").asText().equals("init")).count();
    }

    private static void twoConversations(TestServer server) throws Exception {
        ConversationCacheTest.Chat a = new ConversationCacheTest.Chat(server, "m", null);
        ConversationCacheTest.Chat b = new ConversationCacheTest.Chat(server, "m", null);
        a.say("Chat A, first question");
        b.say("Chat B, first question");
        a.say("Chat A, second question");
    }

    @Test
    void aSecondSlotBeyondMaxMemoryIsNotLoadedAndTheModelServesOnOne() throws Exception {
        try (TestServer server = TestServer.in(dir.resolve("tight")).model("m", Map.of())
                .sidecar("m", "memory_mb: 1000\n").set("cache.slots", "2").set("models.max_memory", "1500M")
                .set("models.memory_check", "off").start()) {
            twoConversations(server);
            assertThat(inits(server, "m")).isEqualTo(1);
            assertThat(server.runs("m").get(2).get("prompt").asText()).as("chat A resent on the one slot")
                    .startsWith("User: Chat A, first question");
        }
        try (TestServer server = TestServer.in(dir.resolve("roomy")).model("m", Map.of())
                .sidecar("m", "memory_mb: 1000\n").set("cache.slots", "2").set("models.max_memory", "2000M")
                .set("models.memory_check", "off").start()) {
            twoConversations(server);
            assertThat(inits(server, "m")).isEqualTo(2);
        }
    }

    @Test
    void theMemoryCheckCountsAVisionModelsEncoder() throws Exception {
        try (TestServer server = TestServer.in(dir.resolve("short")).model(VisionTest.VL, VisionTest.LANGUAGE_MODEL)
                .encoder(VisionTest.VL, VisionTest.ENCODER).sidecar(VisionTest.VL, "memory_mb: 500\n")
                .set("models.memory_check", "on").set("models.memory_budget_mb", "500").start()) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", VisionTest.chat(VisionTest.VL,
                    VisionTest.text("user", "Hi.")));
            ChatCompletionsTest.assertError(reply, 503, "insufficient_memory");
            assertThat(reply.json().at("/error/message").asText())
                    .contains("model " + VisionTest.VL + " needs about 501 MB");
            assertThat(server.trace(VisionTest.VL)).as("no init was attempted").isEmpty();
        }
        try (TestServer server = TestServer.in(dir.resolve("enough")).model(VisionTest.VL, VisionTest.LANGUAGE_MODEL)
                .encoder(VisionTest.VL, VisionTest.ENCODER).sidecar(VisionTest.VL, "memory_mb: 500\n")
                .set("models.memory_check", "on").set("models.memory_budget_mb", "501").start()) {
            chat(server, VisionTest.VL);
            JsonNode health = server.getForReply("/health").json();
            assertThat(health.get("loaded_models").findValuesAsText("id")).containsExactly(VisionTest.VL);
        }
    }
}
