package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GGUF models served end to end by llama.cpp: tiny models generated into the models directory, the real library,
 * real HTTP. Greedy output is deterministic, so answers can be compared across requests; the runtime's own counts
 * ({@code timings.prompt_n}: tokens decoded, {@code timings.cache_n}: tokens reused) show the prefix reuse.
 */
class LlamaChatTest {
    @TempDir
    static Path dir;
    static LlamaTestServer server;

    @BeforeAll
    static void start() {
        server = LlamaTestServer.in(dir).model("tiny", TinyLlama.Options.chat())
                .model("tiny-embed", TinyLlama.Options.embeddingModel()).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static String chat(String messages, String extra) {
        return "{\"model\":\"tiny\",\"temperature\":0,\"max_tokens\":12,\"messages\":[" + messages + "]"
                + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    /** A question answered with 24 tokens. */
    static String longer(String question) {
        return chat(user(question), "").replace("\"max_tokens\":12", "\"max_tokens\":24");
    }

    static String user(String text) {
        return "{\"role\":\"user\",\"content\":" + TestServer.JSON.valueToTree(text) + "}";
    }

    static String assistant(String text) {
        return "{\"role\":\"assistant\",\"content\":" + TestServer.JSON.valueToTree(text) + "}";
    }

    static JsonNode ok(TestServer.Reply reply) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    static String content(JsonNode answer) {
        return answer.at("/choices/0/message/content").asText();
    }

    @Test
    void aChatCompletionIsAnsweredByTheModelAndGreedyAnswersRepeat() throws Exception {
        JsonNode answer = ok(server.post("/v1/chat/completions", chat(user("Hello, how are you?"), "")));
        assertThat(content(answer)).isNotEmpty();
        assertThat(answer.at("/choices/0/finish_reason").asText()).isIn("length", "stop");
        assertThat(answer.at("/usage/completion_tokens").asInt()).isBetween(1, 12);
        assertThat(answer.at("/usage/prompt_tokens").asInt()).isGreaterThan(5);
        assertThat(answer.at("/timings/predicted_n").asInt()).isEqualTo(answer.at("/usage/completion_tokens").asInt());
        JsonNode again = ok(server.post("/v1/chat/completions", chat(user("Hello, how are you?"), "")));
        assertThat(content(again)).isEqualTo(content(answer));
    }

    @Test
    void aStreamedAnswerIsTheSameAnswerInChunks() throws Exception {
        String messages = "{\"role\":\"system\",\"content\":\"Be brief.\"}," + user("Tell me about the board.");
        String whole = content(ok(server.post("/v1/chat/completions", chat(messages, ""))));
        TestServer.Reply streamed = server.post("/v1/chat/completions",
                chat(messages, "\"stream\":true,\"stream_options\":{\"include_usage\":true}"));
        assertThat(streamed.status()).isEqualTo(200);
        List<JsonNode> chunks = SseEvents.parse(streamed.body()).assertValidChatStream(true);
        StringBuilder text = new StringBuilder();
        chunks.forEach(c -> text.append(c.at("/choices/0/delta/content").asText("")));
        assertThat(text.toString()).isEqualTo(whole);
    }

    @Test
    void chatsSentAtOnceAreAnsweredSideBySideAsTheyAreAlone() throws Exception {
        List<String> questions = List.of("One at a time?", "Two at once?", "Three, one waits?");
        List<String> alone = new java.util.ArrayList<>();
        for (String q : questions) {
            alone.add(content(ok(server.post("/v1/chat/completions", longer(q)))));
        }
        List<java.util.concurrent.CompletableFuture<TestServer.Reply>> replies = questions.stream()
                .map(q -> java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return server.post("/v1/chat/completions", longer(q));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                })).toList();
        for (int i = 0; i < questions.size(); i++) {
            assertThat(content(ok(replies.get(i).get()))).as(questions.get(i)).isEqualTo(alone.get(i));
        }
    }

    @Test
    void aFollowUpDecodesOnlyWhatTheCacheDoesNotHold() throws Exception {
        String first = user("The board has four big cores. What are they?");
        JsonNode one = ok(server.post("/v1/chat/completions", chat(first, "")));
        int firstPrompt = one.at("/usage/prompt_tokens").asInt();
        assertThat(one.at("/timings/prompt_n").asInt()).as("a new conversation decodes its prompt")
                .isGreaterThan(0);

        JsonNode two = ok(server.post("/v1/chat/completions",
                chat(first + "," + assistant(content(one)) + "," + user("And the little ones?"), "")));
        int cached = two.at("/timings/cache_n").asInt();
        int decoded = two.at("/timings/prompt_n").asInt();
        assertThat(cached).as("the first prompt is reused whole").isGreaterThanOrEqualTo(firstPrompt);
        assertThat(two.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(cached);
        assertThat(decoded + cached).isEqualTo(two.at("/usage/prompt_tokens").asInt());
        assertThat(decoded).as("only the answer and the new question are decoded")
                .isLessThan(two.at("/usage/prompt_tokens").asInt() - firstPrompt + 1);
    }

    @Test
    void anEditedTurnCutsTheCacheWhereItDiffers() throws Exception {
        String start = user("Where is the NPU?") + "," + assistant("On the chip.") + ",";
        JsonNode original = ok(server.post("/v1/chat/completions", chat(start + user("How fast is it?"), "")));
        int total = original.at("/usage/prompt_tokens").asInt();
        JsonNode edited = ok(server.post("/v1/chat/completions", chat(start + user("How big is it?"), "")));
        int cached = edited.at("/timings/cache_n").asInt();
        int decoded = edited.at("/timings/prompt_n").asInt();
        // everything before "big" is reused: the earlier turns and the start of the edited question
        assertThat(cached).isGreaterThan(total / 2).isLessThan(total);
        assertThat(decoded).isEqualTo(edited.at("/usage/prompt_tokens").asInt() - cached).isLessThan(20);
    }

    @Test
    void closingTheStreamAbortsTheGenerationAndTheModelServesTheNextRequest() throws Exception {
        String body = "{\"model\":\"tiny\",\"temperature\":0.9,\"seed\":7,\"max_tokens\":1500,\"stream\":true,"
                + "\"messages\":[" + user("Write a very long story.") + "]}";
        double abortsBefore = aborts();
        try (RawHttp http = RawHttp.post(server.port(), "/v1/chat/completions", body)) {
            assertThat(http.readUntil("\"content\":", 4)).isTrue();
        }
        Poll.until("the aborted generation counted", Duration.ofSeconds(30), LlamaChatTest::aborts,
                n -> n > abortsBefore);
        JsonNode next = ok(server.post("/v1/chat/completions", chat(user("Hello again."), "")));
        assertThat(content(next)).isNotEmpty();
    }

    static double aborts() throws Exception {
        String metrics = server.get("/metrics").body();
        return metrics.lines().filter(l -> l.startsWith("rkllm_aborts_total{") && l.contains("model=\"tiny\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void anEmbeddingModelGivesOneNormalisedVectorPerText() throws Exception {
        JsonNode reply = ok(server.post("/v1/embeddings",
                "{\"model\":\"tiny-embed\",\"input\":[\"The NPU has three cores.\",\"Boot from eMMC.\","
                        + "\"The NPU has three cores.\"]}"));
        JsonNode data = reply.get("data");
        assertThat(data.size()).isEqualTo(3);
        float[] a = EmbeddingsApiTest.floats(data.get(0).get("embedding"));
        float[] b = EmbeddingsApiTest.floats(data.get(1).get("embedding"));
        float[] c = EmbeddingsApiTest.floats(data.get(2).get("embedding"));
        assertThat(a).hasSize(64);
        assertThat(EmbeddingsApiTest.norm(a)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-4));
        assertThat(a).isEqualTo(c);
        assertThat(a).isNotEqualTo(b);
        assertThat(reply.at("/usage/prompt_tokens").asInt()).isGreaterThan(6);
    }

    @Test
    void aChatRequestToTheEmbeddingModelIsRefused() throws Exception {
        TestServer.Reply reply = server.post("/v1/chat/completions",
                "{\"model\":\"tiny-embed\",\"messages\":[" + user("Hi") + "]}");
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body()).contains("embedding model");
    }

    @Test
    void rerankingNeedsARerankerAndSaysWhatIsMissing() throws Exception {
        TestServer.Reply notARanker = server.post("/v1/rerank",
                "{\"model\":\"tiny-embed\",\"query\":\"cores\",\"documents\":[\"four cores\",\"a fan\"]}");
        assertThat(notARanker.status()).isEqualTo(400);
        assertThat(notARanker.body()).contains("is not a reranker").contains("none is installed");
        TestServer.Reply noQuery = server.post("/rerank", "{\"model\":\"tiny-embed\",\"documents\":[\"a\"]}");
        assertThat(noQuery.status()).isEqualTo(400);
        assertThat(noQuery.json().at("/error/param").asText()).isEqualTo("query");
        TestServer.Reply badDocument = server.post("/v1/rerank",
                "{\"model\":\"tiny-embed\",\"query\":\"q\",\"documents\":[3]}");
        assertThat(badDocument.status()).isEqualTo(400);
        assertThat(badDocument.json().at("/error/param").asText()).isEqualTo("documents");
    }

    @Test
    void theModelsAreListedWithWhatTheirHeadersSay() throws Exception {
        JsonNode list = ok(server.get("/v1/models"));
        JsonNode tiny = null;
        JsonNode embed = null;
        for (JsonNode m : list.get("data")) {
            if (m.get("id").asText().equals("tiny")) {
                tiny = m;
            } else if (m.get("id").asText().equals("tiny-embed")) {
                embed = m;
            }
        }
        assertThat(tiny).isNotNull();
        assertThat(tiny.get("engine").asText()).isEqualTo("llama.cpp");
        assertThat(tiny.get("context_length").asInt()).isEqualTo(2048);
        assertThat(tiny.at("/gguf/architecture").asText()).isEqualTo("llama");
        assertThat(tiny.at("/gguf/quantization").asText()).isEqualTo("F32");
        assertThat(tiny.at("/gguf/parameters").asLong()).isEqualTo(143_168);
        assertThat(tiny.at("/capabilities/chat").asBoolean()).isTrue();
        assertThat(embed.at("/capabilities/embedding").asBoolean()).isTrue();
        assertThat(embed.get("dimensions").asInt()).isEqualTo(64);

        JsonNode show = ok(server.post("/api/show", "{\"model\":\"tiny\"}"));
        assertThat(show.at("/details/format").asText()).isEqualTo("gguf");
        assertThat(show.at("/details/family").asText()).isEqualTo("llama");
        assertThat(show.at("/details/parameter_size").asText()).isEqualTo("143.17K");
        assertThat(show.at("/details/quantization_level").asText()).isEqualTo("F32");
        assertThat(show.at("/model_info/llama.context_length").asInt()).isEqualTo(2048);
        assertThat(show.at("/model_info/general.parameter_count").asLong()).isEqualTo(143_168);
        assertThat(show.get("template").asText()).contains("<|im_start|>");
        JsonNode tags = ok(server.get("/api/tags"));
        assertThat(tags.get("models").findValuesAsText("name")).contains("tiny:latest", "tiny-embed:latest");
    }

    static final String SCHEMA = "{\"type\":\"object\",\"properties\":{"
            + "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":6},"
            + "\"cores\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":8},"
            + "\"big\":{\"type\":\"boolean\"}},\"required\":[\"name\",\"cores\",\"big\"],"
            + "\"additionalProperties\":false}";

    @Test
    void aJsonSchemaAnswerIsValidOnTheFirstRunBecauseTheGrammarAllowsNothingElse() throws Exception {
        // random weights write anything: only the grammar can make this model answer in the schema
        String body = chat(user("Describe the board's CPU."), "\"response_format\":{\"type\":\"json_schema\","
                + "\"json_schema\":{\"name\":\"cpu\",\"schema\":" + SCHEMA + "}}")
                .replace("\"max_tokens\":12", "\"max_tokens\":400");
        TestServer.Reply reply = server.post("/v1/chat/completions", body);
        JsonNode answer = ok(reply);
        assertThat(reply.header("X-RKLLM-Output-Check")).isEqualTo("valid");
        assertThat(answer.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
        JsonNode value = TestServer.JSON.readTree(content(answer));
        var schema = com.networknt.schema.SchemaRegistry.withDefaultDialect(
                com.networknt.schema.SpecificationVersion.DRAFT_2020_12).getSchema(TestServer.JSON.readTree(SCHEMA));
        assertThat(schema.validate(value)).as(content(answer)).isEmpty();
        assertThat(value.fieldNames()).toIterable().containsExactly("name", "cores", "big");

        // the same request streamed is the same answer
        TestServer.Reply streamed = server.post("/v1/chat/completions", body.replace("\"temperature\":0",
                "\"temperature\":0,\"stream\":true"));
        StringBuilder text = new StringBuilder();
        SseEvents.parse(streamed.body()).assertValidChatStream(false)
                .forEach(c -> text.append(c.at("/choices/0/delta/content").asText("")));
        assertThat(text.toString()).isEqualTo(content(answer));
    }

    @Test
    void ollamasFormatSchemaIsFollowedByGrammarToo() throws Exception {
        TestServer.Reply reply = server.post("/api/chat", "{\"model\":\"tiny\",\"stream\":false,\"format\":" + SCHEMA
                + ",\"options\":{\"temperature\":0,\"num_predict\":400},\"messages\":[" + user("List the cores.")
                + "]}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode value = TestServer.JSON.readTree(reply.json().at("/message/content").asText());
        assertThat(value.fieldNames()).toIterable().containsExactly("name", "cores", "big");
        assertThat(reply.json().at("/done_reason").asText()).isEqualTo("stop");
    }

    @Test
    void countsBeyondWhatLlamaCppRepeatsAreWrittenFreelyAndCheckedNotAServerError() throws Exception {
        // llama.cpp refuses a grammar that repeats an item more than 2,000 times: the answer goes unconstrained
        for (String schema : List.of("{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":2002}",
                "{\"type\":\"string\",\"minLength\":3000}")) {
            TestServer.Reply reply = server.post("/v1/chat/completions", chat(user("Numbers?"),
                    "\"reasoning_effort\":\"none\",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":"
                            + "{\"name\":\"x\",\"schema\":" + schema + "}}").replace("\"max_tokens\":12",
                    "\"max_tokens\":4"));
            // the random-weight model writes no such JSON unconstrained: checked, asked again, then a clear 422
            assertThat(reply.status()).as(reply.body()).isEqualTo(422);
            assertThat(reply.json().at("/error/code").asText()).isEqualTo("invalid_output");
        }
    }

    @Test
    void aPromptLongerThanTheContextByTheModelsOwnCountIsTheClientsError() throws Exception {
        // CJK text: about one token per character by the pipeline's estimate, three by the tiny byte-level vocabulary
        String text = "\u6a21\u578b\u4e0a\u4e0b\u6587".repeat(200);
        TestServer.Reply reply = server.post("/v1/chat/completions", chat(user(text), ""));
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo("context_length_exceeded");
        assertThat(ok(server.post("/v1/chat/completions", chat(user("Short again."), "")))).isNotNull();
    }
}
