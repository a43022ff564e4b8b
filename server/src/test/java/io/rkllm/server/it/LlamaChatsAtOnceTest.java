package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TensorType;
import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several chats with one GGUF model at once, with the default configuration (no {@code engines.llama.parallel}
 * set): each streams its first text before any of them has finished, so none waits for another's end (with two
 * sequences, as the default was, a third chat started only when one of the first two ended). The tiny model has a
 * 4,096-token context here, which the sequences share: four answers of 900 tokens fit in it together.
 */
class LlamaChatsAtOnceTest {
    static final int TOKENS = 900;

    @TempDir
    static Path dir;
    static LlamaTestServer server;

    @BeforeAll
    static void start() {
        server = LlamaTestServer.in(dir).model("tiny", new TinyLlama.Options(42, 64, 2, 4, 2, 192, 4096, 200,
                TensorType.F32, false, 2)).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** When a streamed chat got its first text, and when its stream ended. */
    record Progress(long firstText, long end, String body) {
    }

    static Progress stream(String question) {
        String body = "{\"model\":\"tiny\",\"temperature\":0,\"max_tokens\":" + TOKENS + ",\"stream\":true,"
                + "\"messages\":[" + LlamaChatTest.user(question) + "]}";
        try (RawHttp http = RawHttp.post(server.port(), "/v1/chat/completions", body)) {
            // the first chunk names the role; text comes in the chunks after it
            assertThat(http.readUntil("\"content\":", 3)).as(http.text()).isTrue();
            long first = System.nanoTime();
            assertThat(http.readUntil("[DONE]", 1)).as(http.text()).isTrue();
            return new Progress(first, System.nanoTime(), http.text());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 4})
    void chatsSentAtOnceAllStreamBeforeAnyEnds(int chats) throws Exception {
        List<CompletableFuture<Progress>> running = new ArrayList<>();
        for (int i = 0; i < chats; i++) {
            String question = "Chat " + (i + 1) + " of " + chats + ": tell me a long story.";
            running.add(CompletableFuture.supplyAsync(() -> stream(question), r -> Thread.ofPlatform().start(r)));
        }
        List<Progress> done = new ArrayList<>();
        for (CompletableFuture<Progress> f : running) {
            done.add(f.get());
        }
        long lastStart = done.stream().mapToLong(Progress::firstText).max().orElseThrow();
        long firstEnd = done.stream().mapToLong(Progress::end).min().orElseThrow();
        assertThat(lastStart).as("every chat streamed text before the first one ended").isLessThan(firstEnd);
        assertThat(done).allSatisfy(p -> assertThat(p.body()).contains("\"finish_reason\":\"length\""));
    }
}
