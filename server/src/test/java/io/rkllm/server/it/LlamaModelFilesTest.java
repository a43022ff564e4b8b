package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TinyLlama;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GGUF files that cannot be served: a damaged file is reported at discovery and left out, one truncated after the
 * server started fails its load with the reason, a model bigger than the memory budget is not loaded at all; each
 * time the server goes on serving its other models.
 */
class LlamaModelFilesTest {
    @TempDir
    Path dir;

    static String chat(String model) {
        return "{\"model\":\"" + model + "\",\"temperature\":0,\"max_tokens\":4,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    }

    @Test
    void aDamagedFileIsLeftOutWithItsReasonAndAFileTruncatedLaterFailsItsLoadClearly() throws Exception {
        byte[] damaged = "GGUF\u0003\u0000\u0000\u0000 not really a model".getBytes();
        try (LlamaTestServer server = LlamaTestServer.in(dir).model("good", TinyLlama.Options.chat())
                .model("later", TinyLlama.Options.chat()).file("broken/broken.gguf", damaged).start()) {
            assertThat(server.discovery().errors()).anySatisfy(e -> assertThat(e.toString())
                    .contains("broken.gguf").contains("not a usable GGUF model"));
            assertThat(server.discovery().models()).extracting(m -> m.id()).containsExactly("good", "later");
            assertThat(server.post("/v1/chat/completions", chat("broken")).status()).isEqualTo(404);

            Path later = dir.resolve("models/later/later.gguf");
            try (FileChannel file = FileChannel.open(later, StandardOpenOption.WRITE)) {
                file.truncate(Files.size(later) * 2 / 3);
            }
            TestServer.Reply failed = server.post("/v1/chat/completions", chat("later"));
            assertThat(failed.status()).as(failed.body()).isEqualTo(503);
            assertThat(failed.body()).contains("truncated");

            TestServer.Reply served = server.post("/v1/chat/completions", chat("good"));
            assertThat(served.status()).as(served.body()).isEqualTo(200);
        }
    }

    @Test
    void aModelBiggerThanTheMemoryBudgetIsNotLoaded() throws Exception {
        // the tiny model's estimate is its file, its KV cache and llama.cpp's buffers (at least 64 MB): over 32 MB
        try (LlamaTestServer server = LlamaTestServer.in(dir).model("tiny", TinyLlama.Options.chat())
                .set("models.memory_check", "on").set("models.memory_budget_mb", "32").start()) {
            TestServer.Reply refused = server.post("/v1/chat/completions", chat("tiny"));
            assertThat(refused.status()).as(refused.body()).isEqualTo(503);
            assertThat(refused.json().at("/error/code").asText()).isEqualTo("insufficient_memory");
            assertThat(refused.body()).contains("tiny");
            assertThat(server.get("/health").status()).isEqualTo(200);
        }
    }

    @Test
    void aModelOfAnArchitectureTheLibraryDoesNotKnowFailsItsLoadSayingWhatToDo() throws Exception {
        try (LlamaTestServer server = LlamaTestServer.in(dir).model("good", TinyLlama.Options.chat())
                .model("newer", TinyLlama.Options.chat()).start()) {
            // the architecture's name in the header, as a model newer than the library would have it
            Path file = dir.resolve("models/newer/newer.gguf");
            byte[] bytes = Files.readAllBytes(file);
            byte[] key = "general.architecture".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            int at = indexOf(bytes, key) + key.length + 4 + 8; // the value's type, then its length, then "llama"
            assertThat(new String(bytes, at, 5, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("llama");
            System.arraycopy("qwen9".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, bytes, at, 5);
            Files.write(file, bytes);

            TestServer.Reply failed = server.post("/v1/chat/completions", chat("newer"));
            assertThat(failed.status()).as(failed.body()).isEqualTo(503);
            assertThat(failed.body()).contains("qwen9").contains("engines.llama.library").contains("newer build");
            assertThat(server.post("/v1/chat/completions", chat("good")).status()).isEqualTo(200);
        }
    }

    private static int indexOf(byte[] bytes, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= bytes.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (bytes[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
