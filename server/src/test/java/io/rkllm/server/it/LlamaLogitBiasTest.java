package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OpenAI's {@code logit_bias} on a GGUF model, through llama.cpp's logit-bias sampler: a bias of 100 makes a token
 * the greedy answer's every token, {@code false} bans it, a text key means the text's tokens (llama-server's form),
 * and what the model cannot take is a 400 naming the field.
 */
class LlamaLogitBiasTest {
    @TempDir
    static Path dir;
    static LlamaTestServer server;
    /** Two tokens of the tiny model's vocabulary: the letters a and b. */
    static int a;
    static int b;

    @BeforeAll
    static void start() {
        List<String> vocabulary = TinyLlama.vocabulary(TinyLlama.Options.chat());
        a = vocabulary.indexOf("a");
        b = vocabulary.indexOf("b");
        assertThat(a).isNotNegative();
        assertThat(b).isNotNegative();
        server = LlamaTestServer.in(dir).model("tiny", TinyLlama.Options.chat()).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String chat(String bias) {
        return "{\"model\":\"tiny\",\"temperature\":0,\"max_tokens\":6,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"Which cores does the board have?\"}],\"logit_bias\":" + bias + "}";
    }

    private static String answer(String bias) throws Exception {
        JsonNode answer = LlamaChatTest.ok(server.post("/v1/chat/completions", chat(bias)));
        assertThat(answer.at("/choices/0/finish_reason").asText()).isEqualTo("length");
        return answer.at("/choices/0/message/content").asText();
    }

    @Test
    void aBiasOfAHundredMakesEveryTokenTheBiasedOne() throws Exception {
        String unbiased = LlamaChatTest.ok(server.post("/v1/chat/completions", chat("{}")))
                .at("/choices/0/message/content").asText();
        assertThat(unbiased).isNotEqualTo("aaaaaa");
        assertThat(answer("{\"" + a + "\":100}")).isEqualTo("aaaaaa");
        // llama-server's forms: a pair list, and a text standing for its tokens
        assertThat(answer("[[" + a + ",100]]")).isEqualTo("aaaaaa");
        assertThat(answer("{\"a\":100}")).isEqualTo("aaaaaa");
        assertThat(answer("[[\"b\",100]]")).isEqualTo("bbbbbb");
        // in a pair a string is a text, digits too (llama-server's): "7" is the text 7, not token 7
        assertThat(answer("[[\"7\",100]]")).isEqualTo("777777");
        // the legacy completions take it too
        JsonNode legacy = LlamaChatTest.ok(server.post("/v1/completions", "{\"model\":\"tiny\",\"temperature\":0,"
                + "\"max_tokens\":4,\"prompt\":\"Which cores?\",\"logit_bias\":{\"" + b + "\":100}}"));
        assertThat(legacy.at("/choices/0/text").asText()).isEqualTo("bbbb");
    }

    @Test
    void falseBansAToken() throws Exception {
        JsonNode unbiased = tokens("{}");
        String first = unbiased.get(0).get("token").asText();
        // the greedy answer's first token banned by its text: the answer starts with another one
        JsonNode banned = tokens("{" + TestServer.JSON.valueToTree(first) + ":false}");
        assertThat(banned.get(0).get("token").asText()).isNotEqualTo(first);
        // a ban outweighs any bias: a, raised by 100 and banned, never comes
        JsonNode forcedAndBanned = tokens("[[" + a + ",100],[" + a + ",false]]");
        assertThat(forcedAndBanned).extracting(t -> t.get("token").asText()).doesNotContain("a");
        assertThat(answer("{\"" + a + "\":-100,\"" + b + "\":100}")).isEqualTo("bbbbbb");
    }

    /** The answer's tokens as its log probabilities list them. */
    private static JsonNode tokens(String bias) throws Exception {
        JsonNode answer = LlamaChatTest.ok(server.post("/v1/chat/completions",
                chat(bias + ",\"logprobs\":true")));
        JsonNode tokens = answer.at("/choices/0/logprobs/content");
        assertThat(tokens.size()).isPositive();
        return tokens;
    }

    @Test
    void aStreamedAnswerIsBiasedAlike() throws Exception {
        TestServer.Reply streamed = server.post("/v1/chat/completions",
                chat("{\"" + b + "\":100},\"stream\":true"));
        assertThat(streamed.status()).isEqualTo(200);
        StringBuilder text = new StringBuilder();
        for (JsonNode chunk : SseEvents.parse(streamed.body()).assertValidChatStream(false)) {
            text.append(chunk.at("/choices/0/delta/content").asText(""));
        }
        assertThat(text.toString()).isEqualTo("bbbbbb");
    }

    @Test
    void aTokenTheVocabularyLacksIsTheClientsError() throws Exception {
        int size = TinyLlama.vocabulary(TinyLlama.Options.chat()).size();
        TestServer.Reply reply = server.post("/v1/chat/completions", chat("{\"" + size + "\":5}"));
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        JsonNode error = reply.json().get("error");
        assertThat(error.get("param").asText()).isEqualTo("logit_bias");
        assertThat(error.get("message").asText()).contains("token " + size).contains("0 to " + (size - 1));
        // a stream's headers wait for the model to read the bias: the same 400, not a 200 with an error event
        TestServer.Reply streamed = server.post("/v1/chat/completions",
                chat("{\"" + size + "\":5},\"stream\":true"));
        assertThat(streamed.status()).isEqualTo(400);
        assertThat(streamed.json().at("/error/param").asText()).isEqualTo("logit_bias");
        assertThat(streamed.body()).contains("token " + size).doesNotContain("data:");
        // the model serves the next request as before
        assertThat(answer("{\"" + a + "\":100}")).isEqualTo("aaaaaa");
    }

    @Test
    void malformedBiasesAreRefusedNamingTheField() throws Exception {
        for (String bias : List.of("5", "\"a\"", "{\"" + a + "\":101}", "{\"" + a + "\":\"100\"}",
                "{\"" + a + "\":true}", "{\"-1\":5}", "{\"\":5}", "{\"" + "x".repeat(257) + "\":5}", "[[1]]",
                "[[1,2,3]]", "[{\"1\":2}]")) {
            TestServer.Reply reply = server.post("/v1/chat/completions", chat(bias));
            assertThat(reply.status()).as(bias + ": " + reply.body()).isEqualTo(400);
            assertThat(reply.json().at("/error/param").asText()).as(bias).isEqualTo("logit_bias");
        }
    }

    @Test
    void biasesThatLeaveNothingToWriteAreTheClientsError() throws Exception {
        // every token banned
        StringBuilder all = new StringBuilder("{");
        int size = TinyLlama.vocabulary(TinyLlama.Options.chat()).size();
        for (int id = 0; id < size; id++) {
            all.append(id == 0 ? "" : ",").append('"').append(id).append("\":false");
        }
        TestServer.Reply banned = server.post("/v1/chat/completions", chat(all + "}"));
        assertThat(banned.status()).as(banned.body()).isEqualTo(400);
        assertThat(banned.json().at("/error/param").asText()).isEqualTo("logit_bias");
        assertThat(banned.json().at("/error/message").asText()).contains("every token");
        // a JSON answer whose first character is banned: the format and the biases contradict each other
        TestServer.Reply contradiction = server.post("/v1/chat/completions",
                chat("{\"{\":false},\"response_format\":{\"type\":\"json_object\"}"));
        assertThat(contradiction.status()).as(contradiction.body()).isEqualTo(400);
        assertThat(contradiction.json().at("/error/param").asText()).isEqualTo("logit_bias");
        assertThat(contradiction.json().at("/error/message").asText()).contains("contradict")
                .doesNotContain("retry");
        assertThat(answer("{\"" + a + "\":100}")).isEqualTo("aaaaaa");
    }

    @Test
    void theOpenAiJavaSdkSendsItAsOpenAiDocumentsIt() {
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(server.url("/v1")).apiKey("none")
                .timeout(Duration.ofSeconds(60)).maxRetries(0).build();
        try {
            ChatCompletion completion = client.chat().completions().create(ChatCompletionCreateParams.builder()
                    .model("tiny").addUserMessage("Which cores does the board have?").temperature(0.0)
                    .maxCompletionTokens(6)
                    .logitBias(ChatCompletionCreateParams.LogitBias.builder()
                            .putAdditionalProperty(Integer.toString(a), JsonValue.from(100)).build())
                    .build());
            assertThat(completion.choices().getFirst().message().content()).hasValue("aaaaaa");
        } finally {
            client.close();
        }
    }
}
