package io.rkllm.server.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionTokenLogprob;
import io.rkllm.llama.gguf.TinyLlama;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Log probabilities of a GGUF model's answer, from llama.cpp's logits, in each API's shape: OpenAI's chat (whole and
 * streamed), the legacy completions' columns, Ollama's list. A greedy answer's every token is the likeliest at its
 * place, so each entry's token is its own first alternative; the tokens' bytes spell the answer.
 */
class LlamaLogprobsTest {
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

    private static String chat(String extra) {
        return "{\"model\":\"tiny\",\"temperature\":0,\"max_tokens\":10,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"Which cores does the board have?\"}]," + extra + "}";
    }

    @Test
    void aChatAnswerGivesEachTokensLogprobAndItsLikeliestAlternatives() throws Exception {
        JsonNode answer = LlamaChatTest.ok(server.post("/v1/chat/completions",
                chat("\"logprobs\":true,\"top_logprobs\":3")));
        JsonNode content = answer.at("/choices/0/logprobs/content");
        assertThat(answer.at("/choices/0/logprobs/refusal").isNull()).isTrue();
        assertThat(content.size()).isEqualTo(answer.at("/usage/completion_tokens").asInt()).isPositive();
        for (JsonNode token : content) {
            JsonNode top = token.get("top_logprobs");
            assertThat(top.size()).isEqualTo(3);
            assertThat(token.get("logprob").asDouble()).isLessThanOrEqualTo(0.0);
            // greedy: the token taken is the likeliest, and the alternatives come most likely first
            assertThat(top.get(0).get("token").asText()).isEqualTo(token.get("token").asText());
            assertThat(top.get(0).get("logprob").asDouble()).isEqualTo(token.get("logprob").asDouble());
            assertThat(top.get(1).get("logprob").asDouble()).isLessThanOrEqualTo(top.get(0).get("logprob").asDouble());
            assertThat(top.get(2).get("logprob").asDouble()).isLessThanOrEqualTo(top.get(1).get("logprob").asDouble());
            assertThat(top.get(1).get("token").asText()).isNotEqualTo(token.get("token").asText());
        }
        assertThat(new String(bytes(content), UTF_8)).isEqualTo(answer.at("/choices/0/message/content").asText());

        JsonNode plain = LlamaChatTest.ok(server.post("/v1/chat/completions", chat("\"logprobs\":false")));
        assertThat(plain.at("/choices/0/logprobs").isNull()).isTrue();
        assertThat(plain.at("/choices/0/message/content").asText())
                .isEqualTo(answer.at("/choices/0/message/content").asText());
    }

    @Test
    void aStreamedAnswerCarriesTheSameLogprobsInItsChunks() throws Exception {
        JsonNode whole = LlamaChatTest.ok(server.post("/v1/chat/completions",
                chat("\"logprobs\":true,\"top_logprobs\":2")));
        TestServer.Reply streamed = server.post("/v1/chat/completions",
                chat("\"logprobs\":true,\"top_logprobs\":2,\"stream\":true"));
        assertThat(streamed.status()).isEqualTo(200);
        List<JsonNode> entries = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        for (JsonNode chunk : SseEvents.parse(streamed.body()).assertValidChatStream(false)) {
            text.append(chunk.at("/choices/0/delta/content").asText(""));
            JsonNode logprobs = chunk.at("/choices/0/logprobs");
            assertThat(logprobs.isNull() || logprobs.has("content")).as(chunk.toString()).isTrue();
            logprobs.path("content").forEach(entries::add);
        }
        sameTokens(entries, whole.at("/choices/0/logprobs/content"));
        assertThat(text.toString()).isEqualTo(whole.at("/choices/0/message/content").asText());
    }

    @Test
    void theTokensOfAStopStringAreLeftOutWithItsText() throws Exception {
        JsonNode full = LlamaChatTest.ok(server.post("/v1/chat/completions", chat("\"logprobs\":true")))
                .at("/choices/0/logprobs/content");
        // a token of plain text that the answer has not written before: the stop string
        int at = -1;
        StringBuilder before = new StringBuilder();
        for (int i = 1; i < full.size() && at < 0; i++) {
            before.append(full.get(i - 1).get("token").asText());
            String token = full.get(i).get("token").asText();
            if (token.matches("[A-Za-z]{2,}") && !before.toString().contains(token)) {
                at = i;
            }
        }
        assertThat(at).as("a plain token in " + full).isPositive();
        String stop = full.get(at).get("token").asText();
        JsonNode stopped = LlamaChatTest.ok(server.post("/v1/chat/completions",
                chat("\"logprobs\":true,\"stop\":[" + TestServer.JSON.valueToTree(stop) + "]")));
        assertThat(stopped.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
        JsonNode kept = stopped.at("/choices/0/logprobs/content");
        assertThat(kept.size()).isEqualTo(at);
        for (int i = 0; i < at; i++) {
            assertThat(kept.get(i).get("bytes")).isEqualTo(full.get(i).get("bytes"));
        }
        assertThat(new String(bytes(kept), UTF_8)).isEqualTo(stopped.at("/choices/0/message/content").asText());
    }

    @Test
    void theLegacyCompletionsGiveTheirColumns() throws Exception {
        JsonNode answer = LlamaChatTest.ok(server.post("/v1/completions", "{\"model\":\"tiny\",\"temperature\":0,"
                + "\"max_tokens\":8,\"prompt\":\"The board has\",\"logprobs\":2}"));
        JsonNode logprobs = answer.at("/choices/0/logprobs");
        int n = answer.at("/usage/completion_tokens").asInt();
        assertThat(logprobs.get("tokens").size()).isEqualTo(n).isPositive();
        assertThat(logprobs.get("token_logprobs").size()).isEqualTo(n);
        assertThat(logprobs.get("top_logprobs").size()).isEqualTo(n);
        assertThat(logprobs.get("top_logprobs").get(0).size()).isBetween(1, 2);
        // each whole token's text is in the answer where its offset says; a piece of a character is written as
        // OpenAI writes it (bytes:\xe2) and its offset is its character's
        String text = answer.at("/choices/0/text").asText();
        int last = 0;
        for (int i = 0; i < n; i++) {
            int offset = logprobs.get("text_offset").get(i).asInt();
            String token = logprobs.get("tokens").get(i).asText();
            assertThat(offset).isGreaterThanOrEqualTo(last).isLessThanOrEqualTo(text.length());
            if (token.startsWith("bytes:")) {
                assertThat(token).matches("bytes:(\\\\x[0-9a-f]{2})+");
            } else {
                assertThat(text.substring(offset)).as(token).startsWith(token);
            }
            last = offset;
        }
        assertThat(logprobs.get("text_offset").get(0).asInt()).isZero();
    }

    @Test
    void ollamaGivesItsListBesideTheMessage() throws Exception {
        String body = "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":\"Which cores?\"}],"
                + "\"options\":{\"temperature\":0,\"num_predict\":6},\"logprobs\":true,\"top_logprobs\":1";
        JsonNode whole = LlamaChatTest.ok(server.post("/api/chat", body + ",\"stream\":false}"));
        JsonNode list = whole.get("logprobs");
        assertThat(list.size()).isEqualTo(whole.get("eval_count").asInt());
        assertThat(list.get(0).get("top_logprobs").size()).isEqualTo(1);
        assertThat(new String(bytes(list), UTF_8)).isEqualTo(whole.at("/message/content").asText());

        TestServer.Reply streamed = server.post("/api/chat", body + ",\"stream\":true}");
        List<JsonNode> entries = new ArrayList<>();
        for (String line : streamed.body().split("\n")) {
            TestServer.JSON.readTree(line).path("logprobs").forEach(entries::add);
        }
        sameTokens(entries, list);

        // without top_logprobs Ollama leaves the alternatives out
        JsonNode bare = LlamaChatTest.ok(server.post("/api/chat", body.replace(",\"top_logprobs\":1", "")
                + ",\"stream\":false}"));
        assertThat(bare.at("/logprobs/0").has("top_logprobs")).isFalse();
        assertThat(bare.at("/logprobs/0/logprob").asDouble()).isCloseTo(list.at("/0/logprob").asDouble(), within(1e-4));
    }

    @Test
    void theOpenAiSdkReadsThemWholeAndStreamed() throws Exception {
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(server.url("/v1")).apiKey("any").maxRetries(0)
                .timeout(Duration.ofSeconds(30)).build();
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model("tiny")
                .addUserMessage("Which cores does the board have?").temperature(0).maxCompletionTokens(6)
                .logprobs(true).topLogprobs(2).build();
        List<ChatCompletionTokenLogprob> whole = client.chat().completions().create(params).choices().getFirst()
                .logprobs().orElseThrow().content().orElseThrow();
        assertThat(whole).isNotEmpty().allSatisfy(t -> {
            assertThat(t.topLogprobs()).hasSize(2);
            assertThat(t.logprob()).isLessThanOrEqualTo(0.0);
            assertThat(t.bytes().orElseThrow()).isNotEmpty();
        });
        List<ChatCompletionTokenLogprob> streamed = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
            stream.stream().forEach(chunk -> chunk.choices().forEach(choice -> choice.logprobs()
                    .flatMap(ChatCompletionChunk.Choice.Logprobs::content).ifPresent(streamed::addAll)));
        }
        assertThat(streamed).extracting(ChatCompletionTokenLogprob::token)
                .containsExactlyElementsOf(whole.stream().map(ChatCompletionTokenLogprob::token).toList());
        client.close();
    }

    @Test
    void theResponsesApiGivesThemInItsOutputTextWhenIncludeAsks() throws Exception {
        String body = "{\"model\":\"tiny\",\"temperature\":0,\"max_output_tokens\":8,\"input\":\"Which cores?\","
                + "\"top_logprobs\":2";
        JsonNode whole = LlamaChatTest.ok(server.post("/v1/responses", body
                + ",\"include\":[\"message.output_text.logprobs\"]}"));
        JsonNode text = whole.at("/output/0/content/0");
        JsonNode list = text.get("logprobs");
        assertThat(list.size()).isEqualTo(whole.at("/usage/output_tokens").asInt()).isPositive();
        assertThat(list.get(0).get("top_logprobs").size()).isEqualTo(2);
        assertThat(new String(bytes(list), UTF_8)).isEqualTo(text.get("text").asText());

        TestServer.Reply streamed = server.post("/v1/responses", body
                + ",\"include\":[\"message.output_text.logprobs\"],\"stream\":true}");
        List<JsonNode> deltas = new ArrayList<>();
        JsonNode done = null;
        for (String line : streamed.body().split("\n")) {
            if (line.startsWith("data: ")) {
                JsonNode event = TestServer.JSON.readTree(line.substring(6));
                if (event.get("type").asText().equals("response.output_text.delta")) {
                    event.get("logprobs").forEach(deltas::add);
                } else if (event.get("type").asText().equals("response.output_text.done")) {
                    done = event.get("logprobs");
                }
            }
        }
        sameTokens(deltas, list);
        assertThat(done).isNotNull();
        sameTokens(toList(done), list);

        // top_logprobs alone asks for nothing, as at OpenAI
        JsonNode bare = LlamaChatTest.ok(server.post("/v1/responses", body + "}"));
        assertThat(bare.at("/output/0/content/0/logprobs").isEmpty()).isTrue();
    }

    private static List<JsonNode> toList(JsonNode array) {
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    @Test
    void askingForAlternativesWithoutLogprobsOrTooManyIsRefused() throws Exception {
        TestServer.Reply without = server.post("/v1/chat/completions", chat("\"top_logprobs\":2"));
        assertThat(without.status()).isEqualTo(400);
        assertThat(without.json().at("/error/param").asText()).isEqualTo("top_logprobs");
        assertThat(without.json().at("/error/message").asText()).contains("requires 'logprobs': true");
        TestServer.Reply many = server.post("/v1/chat/completions", chat("\"logprobs\":true,\"top_logprobs\":21"));
        assertThat(many.status()).isEqualTo(400);
        assertThat(many.json().at("/error/message").asText()).contains("between 0 and 20");
        TestServer.Reply ollama = server.post("/api/chat", "{\"model\":\"tiny\",\"stream\":false,\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"Hi\"}],\"logprobs\":true,\"top_logprobs\":-1}");
        assertThat(ollama.status()).isEqualTo(400);
        assertThat(ollama.json().get("error").asText()).contains("between 0 and 20");
        // Ollama takes top_logprobs without logprobs as asking for nothing
        JsonNode quiet = LlamaChatTest.ok(server.post("/api/chat", "{\"model\":\"tiny\",\"stream\":false,"
                + "\"options\":{\"num_predict\":2},\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
                + "\"top_logprobs\":2}"));
        assertThat(quiet.has("logprobs")).isFalse();
    }

    /**
     * The same tokens with the same alternatives, their log probabilities equal but for the last digits: a prompt
     * read again from the cache is computed in other batches than when it was read whole.
     */
    private static void sameTokens(List<JsonNode> entries, JsonNode expected) {
        assertThat(entries).hasSize(expected.size());
        for (int i = 0; i < entries.size(); i++) {
            JsonNode got = entries.get(i);
            JsonNode want = expected.get(i);
            assertThat(got.get("bytes")).isEqualTo(want.get("bytes"));
            assertThat(got.get("logprob").asDouble()).isCloseTo(want.get("logprob").asDouble(), within(1e-4));
            assertThat(got.path("top_logprobs").size()).isEqualTo(want.path("top_logprobs").size());
            for (int j = 0; j < got.path("top_logprobs").size(); j++) {
                assertThat(got.get("top_logprobs").get(j).get("token")).isEqualTo(want.get("top_logprobs").get(j)
                        .get("token"));
            }
        }
    }

    private static byte[] bytes(JsonNode entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (JsonNode entry : entries) {
            entry.get("bytes").forEach(b -> out.write(b.asInt()));
        }
        return out.toByteArray();
    }
}
