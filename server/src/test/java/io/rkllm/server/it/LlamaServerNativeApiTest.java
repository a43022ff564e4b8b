package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * llama-server's own {@code /completion} and {@code /infill}, which its editor plugins and older clients speak: the
 * same raw prompt and fill in the middle as {@code /v1/completions}, in llama-server's objects (its stream's last
 * object has {@code stop: true}, and there is no {@code [DONE]}).
 */
class LlamaServerNativeApiTest {
    private static final String PROMPT = "The board has";

    @TempDir
    static Path dir;
    static LlamaTestServer server;

    @BeforeAll
    static void start() {
        server = LlamaTestServer.in(dir).model("tiny", TinyLlama.Options.chat())
                .model("coder", TinyLlama.Options.chat().withControls(List.of("<|fim_prefix|>", "<|fim_suffix|>",
                        "<|fim_middle|>")))
                .model("repo", TinyLlama.Options.chat().withControls(List.of("<|fim_prefix|>", "<|fim_suffix|>",
                        "<|fim_middle|>", "<|repo_name|>", "<|file_sep|>")))
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static JsonNode openAi(String model, String prompt, String more) throws Exception {
        return LlamaChatTest.ok(server.post("/v1/completions", "{\"model\":\"" + model + "\",\"temperature\":0,"
                + "\"max_tokens\":8,\"prompt\":" + TestServer.JSON.valueToTree(prompt) + more + "}"));
    }

    @Test
    void completionIsTheRawPromptsAnswerInLlamaServersObject() throws Exception {
        JsonNode openai = openAi("tiny", PROMPT, "");
        JsonNode answer = LlamaChatTest.ok(server.post("/completion", "{\"model\":\"tiny\",\"temperature\":0,"
                + "\"n_predict\":8,\"cache_prompt\":true,\"prompt\":\"" + PROMPT + "\"}"));
        assertThat(answer.get("content").asText()).isEqualTo(openai.at("/choices/0/text").asText());
        assertThat(answer.get("stop").asBoolean()).isTrue();
        assertThat(answer.get("stop_type").asText()).isEqualTo("limit");
        assertThat(answer.get("model").asText()).isEqualTo("tiny");
        assertThat(answer.get("tokens_predicted").asInt()).isEqualTo(8);
        assertThat(answer.get("tokens_evaluated").asInt()).isEqualTo(openai.at("/usage/prompt_tokens").asInt());
        assertThat(answer.at("/timings/predicted_n").asInt()).isEqualTo(8);
        assertThat(answer.at("/generation_settings/n_ctx").asInt()).isEqualTo(2048);
        assertThat(answer.at("/generation_settings/n_predict").asInt()).isEqualTo(8);
    }

    @Test
    void llamaVscodesRequestsAreAnswered() throws Exception {
        // between completions it sends the files it watches with nothing to write: read, nothing written
        JsonNode prepared = LlamaChatTest.ok(server.post("/infill", "{\"model\":\"coder\",\"id_slot\":0,"
                + "\"input_prefix\":\"\","
                + "\"input_suffix\":\"\",\"input_extra\":[{\"filename\":\"a.py\",\"text\":\"x = 1\\n\"}],"
                + "\"prompt\":\"\",\"n_predict\":0,\"samplers\":[],\"cache_prompt\":true,\"t_max_prompt_ms\":500,"
                + "\"t_max_predict_ms\":1}"));
        assertThat(prepared.get("content").asText()).isEmpty();
        assertThat(prepared.get("stop").asBoolean()).isTrue();
        assertThat(prepared.at("/generation_settings/n_predict").asInt()).isZero();
        // with nothing to read, answered at once, with the model's settings all the same
        JsonNode nothing = LlamaChatTest.ok(server.post("/infill", "{\"model\":\"coder\",\"input_prefix\":\"\","
                + "\"input_suffix\":\"\",\"prompt\":\"\",\"n_predict\":0}"));
        assertThat(nothing.get("tokens_evaluated").asInt()).isZero();
        assertThat(nothing.at("/generation_settings/n_ctx").asInt()).isEqualTo(2048);
        assertThat(nothing.at("/generation_settings/model").asText()).isEqualTo("coder");
        assertThat(prepared.get("tokens_predicted").asInt()).isZero();
        // a completion as it asks for one (its status line reads generation_settings.n_ctx)
        JsonNode answer = LlamaChatTest.ok(server.post("/infill", "{\"id_slot\":0,\"input_prefix\":"
                + "\"def add(a, b):\\n\",\"input_suffix\":\"\\n\",\"input_extra\":[],\"prompt\":\"    return \","
                + "\"n_predict\":8,\"n_cmpl\":3,\"top_k\":40,\"top_p\":0.99,\"stream\":false,"
                + "\"samplers\":[\"top_k\",\"top_p\",\"infill\"],\"cache_prompt\":true,\"n_indent\":4,"
                + "\"t_max_prompt_ms\":500,\"t_max_predict_ms\":1000,\"model\":\"coder\"}"));
        assertThat(answer.get("content").isTextual()).isTrue();
        assertThat(answer.at("/generation_settings/n_ctx").asInt()).isEqualTo(2048);
        assertThat(answer.get("tokens_cached").isInt()).isTrue();
        assertThat(answer.at("/timings/prompt_n").isInt()).isTrue();
    }

    @Test
    void aStreamIsPiecesAndALastObjectWithoutDone() throws Exception {
        String whole = openAi("tiny", PROMPT, "").at("/choices/0/text").asText();
        TestServer.Reply reply = server.post("/completion", "{\"model\":\"tiny\",\"temperature\":0,\"n_predict\":8,"
                + "\"stream\":true,\"prompt\":\"" + PROMPT + "\"}");
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body()).doesNotContain("[DONE]");
        List<JsonNode> events = new ArrayList<>();
        for (String line : reply.body().split("\n")) {
            if (line.startsWith("data: ")) {
                events.add(TestServer.JSON.readTree(line.substring(6)));
            }
        }
        StringBuilder text = new StringBuilder();
        events.forEach(e -> text.append(e.get("content").asText()));
        assertThat(text.toString()).isEqualTo(whole);
        assertThat(events.subList(0, events.size() - 1)).allMatch(e -> !e.get("stop").asBoolean());
        JsonNode last = events.getLast();
        assertThat(last.get("stop").asBoolean()).isTrue();
        assertThat(last.get("stop_type").asText()).isEqualTo("limit");
        assertThat(last.get("tokens_predicted").asInt()).isEqualTo(8);
    }

    @Test
    void aStopStringEndsItAndIsNamed() throws Exception {
        String whole = openAi("tiny", PROMPT, "").at("/choices/0/text").asText();
        String word = whole.substring(2, 4);
        JsonNode answer = LlamaChatTest.ok(server.post("/completion", "{\"model\":\"tiny\",\"temperature\":0,"
                + "\"n_predict\":8,\"stop\":[" + TestServer.JSON.valueToTree(word) + "],\"prompt\":\"" + PROMPT
                + "\"}"));
        assertThat(whole).startsWith(answer.get("content").asText() + word);
        assertThat(answer.get("stop_type").asText()).isEqualTo("word");
        assertThat(answer.get("stopping_word").asText()).isEqualTo(word);
    }

    @Test
    void infillFillsInTheMiddleAsTheSuffixDoes() throws Exception {
        String prefix = "def add(a, b):\n    return ";
        String suffix = "\n\nprint(add(1, 2))\n";
        String extra = "def sub(a, b):\n    return a - b\n";
        // the prompt goes after the prefix; another file's chunk before them, after llama-server's snippet line
        String expected = openAi("coder", "\n\n--- snippet ---\n\n" + extra + "<|fim_prefix|>" + prefix
                + "<|fim_suffix|>" + suffix + "<|fim_middle|>", "").at("/choices/0/text").asText();
        JsonNode answer = LlamaChatTest.ok(server.post("/infill", "{\"model\":\"coder\",\"temperature\":0,"
                + "\"n_predict\":8,\"input_prefix\":" + TestServer.JSON.valueToTree(prefix.substring(0, 10))
                + ",\"prompt\":" + TestServer.JSON.valueToTree(prefix.substring(10)) + ",\"input_suffix\":"
                + TestServer.JSON.valueToTree(suffix) + ",\"input_extra\":[{\"filename\":\"util.py\","
                + "\"text\":\"def sub(a, b):\\n    return a - b\\n\"}]}"));
        assertThat(answer.get("content").asText()).isEqualTo(expected);
        assertThat(answer.get("content").asText()).as("without the chunk the answer is the suffix's")
                .isNotEqualTo(openAi("coder", prefix, ",\"suffix\":" + TestServer.JSON.valueToTree(suffix))
                        .at("/choices/0/text").asText());

        TestServer.Reply noTokens = server.post("/infill", "{\"model\":\"tiny\",\"input_prefix\":\"def f(\","
                + "\"input_suffix\":\")\"}");
        assertThat(noTokens.status()).isEqualTo(400);
        assertThat(noTokens.json().at("/error/param").asText()).isEqualTo("suffix");
    }

    @Test
    void aModelTrainedOnRepositoriesGetsLlamaServersHeader() throws Exception {
        String byHand = openAi("repo", "<|repo_name|>myproject\n<|file_sep|>filename\n<|fim_prefix|>def f("
                + "<|fim_suffix|>)\n<|fim_middle|>", "").at("/choices/0/text").asText();
        JsonNode answer = LlamaChatTest.ok(server.post("/infill", "{\"model\":\"repo\",\"temperature\":0,"
                + "\"n_predict\":8,\"input_prefix\":\"def f(\",\"input_suffix\":\")\\n\"}"));
        assertThat(answer.get("content").asText()).isEqualTo(byHand);
        // other files: each after the file separator and its name, before the file completed
        String withFiles = openAi("repo", "<|repo_name|>myproject\n<|file_sep|>util.py\nx = 1\n<|file_sep|>tmp\n"
                + "y = 2\n<|file_sep|>filename\n<|fim_prefix|>def f(<|fim_suffix|>)\n<|fim_middle|>", "")
                .at("/choices/0/text").asText();
        JsonNode files = LlamaChatTest.ok(server.post("/infill", "{\"model\":\"repo\",\"temperature\":0,"
                + "\"n_predict\":8,\"input_prefix\":\"def f(\",\"input_suffix\":\")\\n\",\"input_extra\":["
                + "{\"filename\":\"util.py\",\"text\":\"x = 1\\n\"},{\"text\":\"y = 2\\n\"}]}"));
        assertThat(files.get("content").asText()).isEqualTo(withFiles);
    }

    @Test
    void aWarmUpReadsTheFilesForTheCompletionsAfterIt() throws Exception {
        // more chunks than the context holds, as an editor's list of recent files soon is
        StringBuilder extra = new StringBuilder(",\"input_extra\":[");
        for (int f = 0; f < 30; f++) {
            StringBuilder chunk = new StringBuilder();
            for (int i = 0; i < 12; i++) {
                chunk.append("helper_").append(f).append('_').append(i).append(" = ").append(i).append("\n");
            }
            extra.append(f == 0 ? "" : ",").append("{\"filename\":\"h").append(f).append(".py\",\"text\":")
                    .append(TestServer.JSON.valueToTree(chunk.toString()).toString()).append('}');
        }
        extra.append(']');
        // the editor's model is the one that served /infill last: its warm-ups name none
        LlamaChatTest.ok(server.post("/infill", "{\"model\":\"repo\",\"n_predict\":2,\"input_prefix\":\"x\","
                + "\"input_suffix\":\"\"}"));
        JsonNode warm = LlamaChatTest.ok(server.post("/infill", "{\"n_predict\":0,\"input_prefix\":\"\","
                + "\"input_suffix\":\"\",\"prompt\":\"\"" + extra + "}"));
        assertThat(warm.at("/generation_settings/model").asText()).isEqualTo("repo");
        assertThat(warm.get("content").asText()).isEmpty();
        assertThat(warm.get("tokens_predicted").asInt()).isZero();
        int read = warm.get("tokens_evaluated").asInt();
        assertThat(read).as("the chunks that fit were read").isGreaterThan(400).isLessThan(2048);
        // the completion after it keeps the same chunks, whatever its file: all but the markers after them cached
        StringBuilder file = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            file.append("value_").append(i).append(" = compute(").append(i).append(")\n");
        }
        JsonNode completion = LlamaChatTest.ok(server.post("/infill", "{\"model\":\"repo\",\"temperature\":0,"
                + "\"n_predict\":4,\"input_prefix\":" + TestServer.JSON.valueToTree(file.toString())
                + ",\"input_suffix\":\")\\n\"" + extra + "}"));
        assertThat(completion.get("tokens_cached").asInt()).isGreaterThan(read - 16);
    }

    @Test
    void anEditorsWholeFileIsCutToTheContextAsLlamaServerCutsIt() throws Exception {
        StringBuilder file = new StringBuilder();
        for (int i = 0; i < 900; i++) {
            file.append("value_").append(i).append(" = compute(").append(i).append(")\n");
        }
        TestServer.Reply reply = server.post("/infill", "{\"model\":\"coder\",\"temperature\":0,\"n_predict\":8,"
                + "\"input_prefix\":" + TestServer.JSON.valueToTree(file.toString()) + ",\"input_suffix\":"
                + TestServer.JSON.valueToTree(file.toString()) + "}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("X-RKLLM-Context-Trimmed")).startsWith("the prefix's first ");
        assertThat(reply.json().get("tokens_evaluated").asInt()).isLessThan(2048);
        assertThat(reply.json().get("tokens_predicted").asInt()).isEqualTo(8);
        // /v1/completions reads its prompt whole, or refuses it
        TestServer.Reply whole = server.post("/v1/completions", "{\"model\":\"coder\",\"max_tokens\":8,\"prompt\":"
                + TestServer.JSON.valueToTree(file.toString()) + ",\"suffix\":\")\"}");
        assertThat(whole.status()).isEqualTo(400);
    }

    @Test
    void aStreamNamesTheStopStringAndBiasesApply() throws Exception {
        String whole = openAi("tiny", PROMPT, "").at("/choices/0/text").asText();
        String word = whole.substring(2, 4);
        TestServer.Reply reply = server.post("/completion", "{\"model\":\"tiny\",\"temperature\":0,\"n_predict\":8,"
                + "\"stream\":true,\"stop\":[" + TestServer.JSON.valueToTree(word) + "],\"prompt\":\"" + PROMPT
                + "\"}");
        String[] lines = reply.body().strip().split("\n");
        JsonNode last = TestServer.JSON.readTree(lines[lines.length - 1].substring(6));
        assertThat(last.get("stop_type").asText()).isEqualTo("word");
        assertThat(last.get("stopping_word").asText()).isEqualTo(word);
        // llama-server's array form of logit_bias: a token made every token of the answer
        JsonNode biased = LlamaChatTest.ok(server.post("/completion", "{\"model\":\"tiny\",\"temperature\":0,"
                + "\"n_predict\":4,\"logit_bias\":[[\"b\",100]],\"prompt\":\"" + PROMPT + "\"}"));
        assertThat(biased.get("content").asText()).isEqualTo("bbbb");
    }

    @Test
    void aCharacterTheLimitCutsIsLeftOutAndBytesOfNoCharacterAreReplaced() throws Exception {
        // token 195 is the byte 0xC3, the first of a two-byte character: alone at the end it is a character cut
        String body = "{\"model\":\"tiny\",\"temperature\":0,\"logit_bias\":{\"195\":100},\"prompt\":\"" + PROMPT
                + "\",\"max_tokens\":";
        JsonNode one = LlamaChatTest.ok(server.post("/v1/completions", body + "1}"));
        assertThat(one.at("/choices/0/text").asText()).isEmpty();
        assertThat(one.at("/usage/completion_tokens").asInt()).isEqualTo(1);
        // 0xC3 0xC3: the first can start no character that the second continues, so it is U+FFFD at once
        JsonNode three = LlamaChatTest.ok(server.post("/v1/completions", body + "3}"));
        assertThat(three.at("/choices/0/text").asText()).isEqualTo("\uFFFD\uFFFD");
    }

    @Test
    void anEditorsTimeLimitEndsTheAnswerAtANewLine() throws Exception {
        // every token a new line: once a millisecond of writing has passed, the next one ends the answer
        String body = "{\"model\":\"tiny\",\"temperature\":0,\"n_predict\":64,\"logit_bias\":[[\"\\n\",100]],"
                + "\"prompt\":\"" + PROMPT + "\"";
        JsonNode unlimited = LlamaChatTest.ok(server.post("/completion", body + "}"));
        assertThat(unlimited.get("tokens_predicted").asInt()).isEqualTo(64);
        JsonNode limited = LlamaChatTest.ok(server.post("/completion", body + ",\"t_max_predict_ms\":1}"));
        assertThat(limited.get("stop_type").asText()).isEqualTo("limit");
        assertThat(limited.get("tokens_predicted").asInt()).isLessThan(64);
        assertThat(limited.get("content").asText()).isEqualTo("\n".repeat(limited.get("tokens_predicted").asInt()));
        TestServer.Reply negative = server.post("/completion", body + ",\"n_indent\":-1}");
        assertThat(negative.status()).isEqualTo(400);
        assertThat(negative.json().at("/error/param").asText()).isEqualTo("n_indent");
    }

    @Test
    void aSchemaOfOneNumberGetsOne() throws Exception {
        JsonNode answer = LlamaChatTest.ok(server.post("/completion", "{\"model\":\"tiny\",\"temperature\":0,"
                + "\"n_predict\":24,\"json_schema\":{\"type\":\"integer\"},\"prompt\":\"" + PROMPT + "\"}"));
        assertThat(TestServer.JSON.readTree(answer.get("content").asText()).isIntegralNumber())
                .as(answer.get("content").asText()).isTrue();
    }

    @Test
    void aPromptOnlyTheTokenizerFindsTooLongIsA400OnAStreamToo() throws Exception {
        // dense code: the server's estimate lets it through, the model's tokenizer counts more than the context
        String code = "x1=f(y2);".repeat(600);
        TestServer.Reply reply = server.post("/completion", "{\"model\":\"tiny\",\"n_predict\":8,\"stream\":true,"
                + "\"prompt\":\"" + code + "\"}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo("context_length_exceeded");
        assertThat(reply.json().at("/error/message").asText()).as("the engine's count, not the estimate")
                .contains("tokens long").endsWith("shorten the prompt");
        assertThat(reply.json().at("/error/param").asText()).isEqualTo("prompt");
    }

    @Test
    void propsTellTheModelsContext() throws Exception {
        for (String path : List.of("/props?model=coder", "/v1/props?model=coder")) {
            TestServer.Reply reply = server.get(path);
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            JsonNode props = reply.json();
            assertThat(props.at("/default_generation_settings/n_ctx").asInt()).isEqualTo(2048);
            assertThat(props.get("model_alias").asText()).isEqualTo("coder");
            assertThat(props.get("model_path").asText()).isEqualTo("coder.gguf");
            assertThat(props.get("chat_template").asText()).isEqualTo(TinyLlama.CHAT_TEMPLATE);
            assertThat(props.at("/modalities/vision").asBoolean()).isFalse();
        }
        assertThat(server.get("/props?model=nothing").status()).isEqualTo(404);
    }

    @Test
    void whatCannotBeDoneIsRefused() throws Exception {
        for (String body : List.of("{\"model\":\"tiny\",\"prompt\":[12,34]}",
                "{\"model\":\"tiny\",\"prompt\":\"hi\",\"n_probs\":3}",
                "{\"model\":\"tiny\",\"prompt\":\"hi\",\"grammar\":\"root ::= \\\"a\\\"\"}",
                "{\"model\":\"tiny\",\"prompt\":\"\"}",
                "{\"model\":\"tiny\",\"prompt\":\"hi\",\"ignore_eos\":true}",
                "{\"model\":\"tiny\",\"input_extra\":\"x\",\"input_prefix\":\"a\"}")) {
            String path = body.contains("input_prefix") ? "/infill" : "/completion";
            TestServer.Reply reply = server.post(path, body);
            assertThat(reply.status()).as(body).isEqualTo(400);
            assertThat(reply.json().at("/error/type").asText()).as(body).isEqualTo("invalid_request_error");
        }
    }
}
