package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An embedding model is a model of its own: loaded beside the chat model when the limits allow (the default
 * ones do), counted in {@code models.max_loaded} and {@code models.max_memory}, unloaded when idle.
 */
class EmbeddingLoadingTest {
    @TempDir
    Path dir;

    private TestServer.Builder server() {
        return TestServer.in(dir).model("m", Map.of()).model("e", EmbeddingsApiTest.EMBEDDING)
                .sidecar("e", EmbeddingsApiTest.SIDECAR);
    }

    private static List<String> loaded(TestServer server) throws Exception {
        List<String> ids = new ArrayList<>();
        for (JsonNode m : ClientDisconnectTest.health(server).get("loaded_models")) {
            ids.add(m.get("id").asText());
        }
        return ids;
    }

    private static void chat(TestServer server) throws Exception {
        assertThat(server.postForReply("/v1/chat/completions", QueueTest.chat("[[say:hi]]", false)).status())
                .isEqualTo(200);
    }

    private static void embed(TestServer server) throws Exception {
        assertThat(server.postForReply("/v1/embeddings", EmbeddingsApiTest.body("\"hi\"", "")).status())
                .isEqualTo(200);
    }

    @Test
    void theEmbeddingModelLoadsBesideTheChatModelByDefault() throws Exception {
        try (TestServer server = server().start()) {
            chat(server);
            embed(server);
            assertThat(loaded(server)).containsExactly("m", "e");
            chat(server);
            assertThat(server.trace("m").stream().filter(l -> l.get("call").asText().equals("init"))).hasSize(1);
        }
    }

    @Test
    void itTakesTheChatModelsPlaceWhenBothDoNotFit() throws Exception {
        try (TestServer server = server().set("models.max_memory", "1").start()) {
            chat(server);
            embed(server);
            assertThat(loaded(server)).containsExactly("e");
            chat(server);
            assertThat(loaded(server)).containsExactly("m");
        }
        try (TestServer server = server().set("models.max_loaded", "1").start()) {
            chat(server);
            embed(server);
            assertThat(loaded(server)).containsExactly("e");
        }
    }

    @Test
    void anIdleEmbeddingModelIsUnloaded() throws Exception {
        try (TestServer server = server().set("models.idle_unload", "1s").start()) {
            embed(server);
            assertThat(loaded(server)).containsExactly("e");
            // the runtime's destroy is the last thing an unload does: the model leaves the list before it
            Poll.until("the idle embedding model to be destroyed", Duration.ofSeconds(10),
                    () -> server.trace("e").getLast().get("call").asText(), "destroy"::equals);
            assertThat(loaded(server)).isEmpty();
        }
    }
}
