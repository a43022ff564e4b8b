package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw prompts on a GGUF model: {@code /v1/completions} and Ollama's {@code raw: true} give the model the client's text
 * as it is (what a code editor's autocomplete builds), and a {@code suffix} is read through the model's
 * fill-in-the-middle tokens, as llama-server's {@code /infill} places them. Each is compared, greedy, with the
 * answer to the text the model would read for it written out by hand: the same text, the same tokens, the same answer.
 */
class LlamaRawPromptTest {
    private static final String FIM_PREFIX = "<|fim_prefix|>";
    private static final String FIM_SUFFIX = "<|fim_suffix|>";
    private static final String FIM_MIDDLE = "<|fim_middle|>";

    @TempDir
    static Path dir;
    static LlamaTestServer server;

    @BeforeAll
    static void start() {
        server = LlamaTestServer.in(dir).model("tiny", TinyLlama.Options.chat())
                .model("coder", TinyLlama.Options.chat().withControls(List.of(FIM_PREFIX, FIM_SUFFIX, FIM_MIDDLE)))
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static JsonNode completion(String model, String prompt, String more) throws Exception {
        return LlamaChatTest.ok(server.post("/v1/completions", "{\"model\":\"" + model + "\",\"temperature\":0,"
                + "\"max_tokens\":8,\"prompt\":" + TestServer.JSON.valueToTree(prompt) + more + "}"));
    }

    private static int promptTokens(JsonNode answer) {
        return answer.at("/usage/prompt_tokens").asInt();
    }

    @Test
    void aCompletionsPromptIsTheTextTheModelReads() throws Exception {
        String messages = "\"messages\":[{\"role\":\"user\",\"content\":\"Which cores does the board have?\"}]";
        String templated = LlamaChatTest.ok(server.post("/apply-template", "{\"model\":\"tiny\"," + messages + "}"))
                .get("prompt").asText();
        assertThat(templated).startsWith(TinyLlama.IM_START + "user\n");
        JsonNode chat = LlamaChatTest.ok(server.post("/v1/chat/completions", "{\"model\":\"tiny\",\"temperature\":0,"
                + "\"max_tokens\":8," + messages + "}"));

        // the chat's whole prompt sent as a completion: the same tokens read, the same answer
        JsonNode raw = completion("tiny", templated, "");
        assertThat(raw.at("/choices/0/text").asText()).isEqualTo(LlamaChatTest.content(chat));
        assertThat(promptTokens(raw)).isEqualTo(promptTokens(chat));
        // the question alone is read as it is, without the template's turn around it
        JsonNode bare = completion("tiny", "Which cores does the board have?", "");
        assertThat(promptTokens(bare)).isLessThan(promptTokens(chat));
        assertThat(bare.at("/choices/0/text").asText()).isNotEqualTo(LlamaChatTest.content(chat));
    }

    @Test
    void ollamaRawIsTheSame() throws Exception {
        String templated = LlamaChatTest.ok(server.post("/apply-template", "{\"model\":\"tiny\",\"messages\":[{"
                + "\"role\":\"user\",\"content\":\"hello from Ollama\"}]}")).get("prompt").asText();
        JsonNode ollama = LlamaChatTest.ok(server.post("/api/generate", "{\"model\":\"tiny\",\"raw\":true,"
                + "\"stream\":false,\"options\":{\"temperature\":0,\"num_predict\":8},\"prompt\":"
                + TestServer.JSON.valueToTree(templated) + "}"));
        JsonNode raw = completion("tiny", templated, "");
        assertThat(ollama.get("response").asText()).isEqualTo(raw.at("/choices/0/text").asText());
        // as in Ollama, a system prompt has no place in a raw prompt
        TestServer.Reply system = server.post("/api/generate", "{\"model\":\"tiny\",\"raw\":true,\"stream\":false,"
                + "\"system\":\"Be brief.\",\"prompt\":\"hello\"}");
        assertThat(system.status()).isEqualTo(400);
        assertThat(system.json().get("error").asText()).contains("'system'");
        // Ollama's count is of the tokens read anew; at most the whole text's
        assertThat(ollama.get("prompt_eval_count").asInt()).isBetween(1, promptTokens(raw));
    }

    @Test
    void aSuffixIsReadThroughTheModelsFillInTheMiddleTokens() throws Exception {
        String prefix = "def add(a, b):\n    return ";
        String suffix = "\n\nprint(add(1, 2))\n";
        JsonNode infill = completion("coder", prefix, ",\"suffix\":" + TestServer.JSON.valueToTree(suffix));
        // the same text with the tokens written out: the tokenizer reads their texts as the tokens
        JsonNode byHand = completion("coder", FIM_PREFIX + prefix + FIM_SUFFIX + suffix + FIM_MIDDLE, "");
        assertThat(infill.at("/choices/0/text").asText()).isEqualTo(byHand.at("/choices/0/text").asText());
        assertThat(promptTokens(infill)).isEqualTo(promptTokens(byHand));
        assertThat(promptTokens(infill)).isGreaterThan(promptTokens(completion("coder", prefix + suffix, "")));

        // Ollama's suffix, with or without raw, is the same fill in the middle
        for (String raw : List.of("true", "false")) {
            JsonNode ollama = LlamaChatTest.ok(server.post("/api/generate", "{\"model\":\"coder\",\"stream\":false,"
                    + "\"raw\":" + raw + ",\"options\":{\"temperature\":0,\"num_predict\":8},\"prompt\":"
                    + TestServer.JSON.valueToTree(prefix) + ",\"suffix\":" + TestServer.JSON.valueToTree(suffix)
                    + "}"));
            assertThat(ollama.get("response").asText()).as("raw " + raw)
                    .isEqualTo(infill.at("/choices/0/text").asText());
        }
    }

    @Test
    void aSuffixForAModelWithoutFillInTheMiddleTokensIsRefused() throws Exception {
        TestServer.Reply openai = server.post("/v1/completions", "{\"model\":\"tiny\",\"prompt\":\"def add(\","
                + "\"suffix\":\")\\n\"}");
        assertThat(openai.status()).as(openai.body()).isEqualTo(400);
        assertThat(openai.json().at("/error/param").asText()).isEqualTo("suffix");
        assertThat(openai.json().at("/error/message").asText()).contains("fill-in-the-middle tokens");
        TestServer.Reply ollama = server.post("/api/generate", "{\"model\":\"tiny\",\"stream\":false,"
                + "\"prompt\":\"def add(\",\"suffix\":\")\\n\"}");
        assertThat(ollama.status()).as(ollama.body()).isEqualTo(400);
        assertThat(ollama.json().get("error").asText()).contains("fill-in-the-middle tokens");
        // refused before a stream begins (Ollama streams by default)
        TestServer.Reply streamed = server.post("/v1/completions", "{\"model\":\"tiny\",\"stream\":true,"
                + "\"prompt\":\"def add(\",\"suffix\":\")\\n\"}");
        assertThat(streamed.status()).as(streamed.body()).isEqualTo(400);
        assertThat(streamed.json().at("/error/param").asText()).isEqualTo("suffix");
        TestServer.Reply ollamaStream = server.post("/api/generate", "{\"model\":\"tiny\",\"prompt\":\"def add(\","
                + "\"suffix\":\")\\n\"}");
        assertThat(ollamaStream.status()).as(ollamaStream.body()).isEqualTo(400);
        // the model answers the next request
        assertThat(completion("tiny", "def add(", "").at("/choices/0/finish_reason").asText()).isEqualTo("length");
    }

    @Test
    void aSuffixCountsInWhatTheContextMustHold() throws Exception {
        String suffix = "print(add(1, 2))\n".repeat(600);
        TestServer.Reply reply = server.post("/v1/completions", "{\"model\":\"coder\",\"stream\":true,"
                + "\"prompt\":\"def add(\",\"suffix\":" + TestServer.JSON.valueToTree(suffix) + "}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo("context_length_exceeded");
        assertThat(reply.json().at("/error/param").asText()).isEqualTo("prompt");
    }

    @Test
    void aStreamedRawCompletionGivesTheSameText() throws Exception {
        String prompt = TinyLlama.IM_START + "user\nhello" + TinyLlama.IM_END + "\n" + TinyLlama.IM_START
                + "assistant\n";
        String whole = completion("tiny", prompt, "").at("/choices/0/text").asText();
        TestServer.Reply streamed = server.post("/v1/completions", "{\"model\":\"tiny\",\"temperature\":0,"
                + "\"max_tokens\":8,\"stream\":true,\"prompt\":" + TestServer.JSON.valueToTree(prompt) + "}");
        assertThat(streamed.status()).isEqualTo(200);
        StringBuilder text = new StringBuilder();
        for (String line : streamed.body().split("\n")) {
            if (line.startsWith("data: {")) {
                text.append(TestServer.JSON.readTree(line.substring(6)).at("/choices/0/text").asText());
            }
        }
        assertThat(text.toString()).isEqualTo(whole);
    }
}
