package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * llama-server's and Ollama's {@code repeat_last_n} and {@code typical_p} on a GGUF model: the penalties' window
 * (none, some, the whole context) and llama.cpp's locally typical sampler, each seen in the answer.
 */
class LlamaSamplersTest {
    @TempDir
    static Path dir;
    static LlamaTestServer server;

    @BeforeAll
    static void start() {
        server = LlamaTestServer.in(dir).model("tiny", TinyLlama.Options.chat()).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String text(String settings) throws Exception {
        return text("The board has", settings);
    }

    private static String text(String prompt, String settings) throws Exception {
        return LlamaChatTest.ok(server.post("/v1/completions", "{\"model\":\"tiny\",\"max_tokens\":24,\"prompt\":"
                + TestServer.JSON.valueToTree(prompt) + "," + settings + "}")).at("/choices/0/text").asText();
    }

    @Test
    void thePenaltiesSeeThePromptWhateverTheCacheHolds() throws Exception {
        // a prompt of repeated words: read whole the first time, found in the cache the second
        String prompt = "board board board NPU NPU board cores cores board";
        String penalised = "\"temperature\":0,\"repeat_penalty\":1.8";
        String fresh = text(prompt, penalised);
        assertThat(text(prompt, penalised)).isEqualTo(fresh);
        assertThat(fresh).isNotEqualTo(text(prompt, "\"temperature\":0,\"repeat_penalty\":1"));
    }

    @Test
    void theRepetitionPenaltiesLookBackAsFarAsAsked() throws Exception {
        // the model's own defaults may penalise: none here
        String greedy = text("\"temperature\":0,\"repeat_penalty\":1");
        String penalised = text("\"temperature\":0,\"repeat_penalty\":1.8");
        assertThat(penalised).as("the tiny model repeats itself, the penalty changes that").isNotEqualTo(greedy);
        assertThat(text("\"temperature\":0,\"repeat_penalty\":1.8,\"repeat_last_n\":64")).isEqualTo(penalised);
        // 0 looks back over nothing: no penalty at all
        assertThat(text("\"temperature\":0,\"repeat_penalty\":1.8,\"repeat_last_n\":0")).isEqualTo(greedy);
        // -1 is the whole context: a long prompt's first words, which 64 tokens back do not reach, are penalised
        String longer = "board board board NPU NPU NPU cores cores cores " + "and then the rest of it, ".repeat(20);
        String whole = text(longer, "\"temperature\":0,\"repeat_penalty\":1.8,\"repeat_last_n\":-1");
        assertThat(whole).isNotEqualTo(text(longer, "\"temperature\":0,\"repeat_penalty\":1.8,\"repeat_last_n\":64"))
                .isNotEqualTo(text(longer, "\"temperature\":0,\"repeat_penalty\":1"));
        // Ollama's options, the same
        String generate = "{\"model\":\"tiny\",\"raw\":true,\"stream\":false,\"prompt\":\"The board has\","
                + "\"options\":{\"temperature\":0,\"num_predict\":24,\"repeat_penalty\":1.8";
        String ollama = LlamaChatTest.ok(server.post("/api/generate", generate + ",\"repeat_last_n\":0}}"))
                .get("response").asText();
        assertThat(ollama).isEqualTo(greedy);
        assertThat(ollama).isNotEqualTo(LlamaChatTest.ok(server.post("/api/generate", generate + "}}"))
                .get("response").asText());
        TestServer.Reply wrong = server.post("/v1/completions", "{\"model\":\"tiny\",\"prompt\":\"x\","
                + "\"repeat_last_n\":-2}");
        assertThat(wrong.status()).isEqualTo(400);
        assertThat(wrong.json().at("/error/param").asText()).isEqualTo("repeat_last_n");
    }

    @Test
    void aSmallTypicalMassLeavesOneTokenToDraw() throws Exception {
        String hot = "\"temperature\":1.5,\"top_k\":0,\"top_p\":1,\"min_p\":0";
        assertThat(text(hot + ",\"seed\":1")).as("two seeds, two answers").isNotEqualTo(text(hot + ",\"seed\":2"));
        assertThat(text(hot + ",\"seed\":1,\"typical_p\":0.0001"))
                .isEqualTo(text(hot + ",\"seed\":2,\"typical_p\":0.0001"));
        assertThat(server.post("/v1/completions", "{\"model\":\"tiny\",\"prompt\":\"x\",\"typical_p\":1.5}").status())
                .isEqualTo(400);
    }
}
