package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.llama.Batch;
import io.rkllm.llama.ContextParams;
import io.rkllm.llama.DecodeStatus;
import io.rkllm.llama.LlamaContext;
import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.ModelParams;
import io.rkllm.llama.Pooling;
import io.rkllm.llama.gguf.TinyBert;
import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GGUF reranker and a GGUF embedding model served end to end: tiny models generated into the models directory
 * ({@link TinyBert}, {@link TinyLlama}), the real library, real HTTP. What the server answers is compared with what
 * the binding computes for the same model file and text, outside the server: a rerank score is the library's score
 * of the pair, bit for bit; an embedding is the mean of the library's token rows, normalised (docs/embeddings.md).
 */
class LlamaRerankTest {
    private static final String QUERY = "How many big cores does the board have?";
    private static final List<String> DOCUMENTS = List.of("The board has four big cores and four little cores.",
            "The quick brown fox jumps over the lazy dog.", "Hello, hello! How are you today? Très bien, merci.",
            "The answer is 42.");

    @TempDir
    static Path dir;
    static LlamaTestServer server;
    static LlamaModel reranker;
    static LlamaModel embedder;

    @BeforeAll
    static void start() {
        // a context longer than the models were trained for: they are served with their own (512)
        server = LlamaTestServer.in(dir).reranker("tiny-rerank", TinyBert.Options.reranker())
                .model("tiny-embed", TinyLlama.Options.embeddingModel()).set("engines.llama.context", "1024").start();
        // the same files, opened by the binding beside the server
        reranker = LlamaTestServer.runtime().load(ModelParams.of(modelFile("tiny-rerank")));
        embedder = LlamaTestServer.runtime().load(ModelParams.of(modelFile("tiny-embed")));
    }

    @AfterAll
    static void stop() {
        if (reranker != null) {
            reranker.close();
        }
        if (embedder != null) {
            embedder.close();
        }
        server.close();
    }

    private static Path modelFile(String id) {
        return dir.resolve("models").resolve(id).resolve(id + ".gguf");
    }

    /** The library's score of one (query, document) pair: rank pooling over the pair as llama-server frames it. */
    private static float score(String query, String document) {
        int[] tokens = reranker.rerankPair(query, document);
        try (LlamaContext context = reranker.newContext(ContextParams.embedding(512, 1, 1, Pooling.RANK));
             Batch batch = new Batch(tokens.length, 1)) {
            for (int i = 0; i < tokens.length; i++) {
                batch.add(tokens[i], i, 0, true);
            }
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            return context.sequenceEmbedding(0)[0];
        }
    }

    private static float[] scores(String query, List<String> documents) {
        float[] out = new float[documents.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = score(query, documents.get(i));
        }
        return out;
    }

    /** The library's token rows of the text (no pooling), their mean, L2-normalised. */
    private static float[] embedding(String text) {
        int[] tokens = embedder.tokenize(text, true, true);
        double[] sum = new double[embedder.info().embeddingLength()];
        try (LlamaContext context = embedder.newContext(ContextParams.embedding(512, 1, 1, Pooling.NONE));
             Batch batch = new Batch(tokens.length, 1)) {
            for (int i = 0; i < tokens.length; i++) {
                batch.add(tokens[i], i, 0, true);
            }
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            for (int i = 0; i < tokens.length; i++) {
                float[] row = context.embedding(i);
                for (int d = 0; d < sum.length; d++) {
                    sum[d] += row[d];
                }
            }
        }
        float[] mean = new float[sum.length];
        for (int d = 0; d < sum.length; d++) {
            mean[d] = (float) (sum[d] / tokens.length);
        }
        return EmbeddingsApiTest.normalized(mean);
    }

    private static String rerank(String model, String query, List<String> documents, String extra) {
        return "{\"model\":\"" + model + "\",\"query\":" + TestServer.JSON.valueToTree(query) + ",\"documents\":"
                + TestServer.JSON.valueToTree(documents) + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    private static JsonNode ok(TestServer.Reply reply) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    /** Each result's score by the index of its document, as Open WebUI reads them. */
    private static Map<Integer, Float> byIndex(JsonNode results) {
        Map<Integer, Float> out = new LinkedHashMap<>();
        for (JsonNode r : results) {
            assertThat(out.put(r.get("index").asInt(), r.get("relevance_score").floatValue())).isNull();
        }
        return out;
    }

    @Test
    void eachDocumentGetsTheLibrarysScoreOfItsPairBestFirst() throws Exception {
        float[] expected = scores(QUERY, DOCUMENTS);
        JsonNode reply = ok(server.post("/v1/rerank", rerank("tiny-rerank", QUERY, DOCUMENTS, "")));
        assertThat(reply.get("object").asText()).isEqualTo("list");
        assertThat(reply.get("model").asText()).isEqualTo("tiny-rerank");
        JsonNode results = reply.get("results");
        assertThat(results.size()).isEqualTo(DOCUMENTS.size());
        Map<Integer, Float> scores = byIndex(results);
        assertThat(scores.keySet()).containsExactlyInAnyOrder(0, 1, 2, 3);
        for (int i = 0; i < expected.length; i++) {
            assertThat(scores.get(i)).as("document %d", i).isEqualTo(expected[i]);
        }
        List<Float> inOrder = new ArrayList<>(scores.values());
        assertThat(inOrder).isSortedAccordingTo(Comparator.reverseOrder());
        assertThat(inOrder).doesNotHaveDuplicates();
        assertThat(results.get(0).has("document")).isFalse();
        // every pair's tokens, as the library read them
        int tokens = DOCUMENTS.stream().mapToInt(d -> reranker.rerankPair(QUERY, d).length).sum();
        assertThat(reply.at("/usage/prompt_tokens").asInt()).isEqualTo(tokens);
        assertThat(reply.at("/usage/total_tokens").asInt()).isEqualTo(tokens);
    }

    @Test
    void topNKeepsTheBestAndReturnDocumentsSendsTheirText() throws Exception {
        JsonNode all = ok(server.post("/rerank", rerank("tiny-rerank", QUERY, DOCUMENTS, "")));
        JsonNode top = ok(server.post("/rerank", rerank("tiny-rerank", QUERY, DOCUMENTS,
                "\"top_n\":2,\"return_documents\":true")));
        assertThat(top.get("results").size()).isEqualTo(2);
        for (int i = 0; i < 2; i++) {
            JsonNode r = top.get("results").get(i);
            assertThat(r.get("index").asInt()).isEqualTo(all.get("results").get(i).get("index").asInt());
            assertThat(r.get("relevance_score").floatValue())
                    .isEqualTo(all.get("results").get(i).get("relevance_score").floatValue());
            assertThat(r.at("/document/text").asText()).isEqualTo(DOCUMENTS.get(r.get("index").asInt()));
        }
        // documents as {"text": ...} objects (Cohere's and Jina's shape) score as strings do
        List<Map<String, String>> objects = DOCUMENTS.stream().map(d -> Map.of("text", d)).toList();
        JsonNode asObjects = ok(server.post("/v1/rerank", "{\"model\":\"tiny-rerank\",\"query\":"
                + TestServer.JSON.valueToTree(QUERY) + ",\"documents\":" + TestServer.JSON.valueToTree(objects) + "}"));
        assertThat(byIndex(asObjects.get("results"))).isEqualTo(byIndex(all.get("results")));
    }

    /**
     * Open WebUI's external reranker (backend/open_webui/retrieval/models/external.py) posts
     * {@code {model, query, documents, top_n: len(documents)}} with requests' {@code json=}: Python's separators and
     * ASCII escapes, a bearer token and, where it forwards user information, X-OpenWebUI-User-* headers. It sorts
     * the results by index and takes each relevance_score.
     */
    @Test
    void openWebUisExternalRerankerRequestIsAnswered() throws Exception {
        String body = "{\"model\": \"tiny-rerank\", \"query\": \"How many big cores does the board have?\", "
                + "\"documents\": [\"The board has four big cores and four little cores.\", "
                + "\"The quick brown fox jumps over the lazy dog.\", "
                + "\"Hello, hello! How are you today? Tr\\u00e8s bien, merci.\", \"The answer is 42.\"], "
                + "\"top_n\": 4}";
        JsonNode reply = ok(server.post("/v1/rerank", body, Map.of("Authorization", "Bearer sk-open-webui",
                "X-OpenWebUI-User-Name", "Jos%C3%A9", "X-OpenWebUI-User-Id", "8d5c1f0e",
                "X-OpenWebUI-User-Email", "jose@example.org", "X-OpenWebUI-User-Role", "user")));
        List<JsonNode> results = new ArrayList<>();
        reply.get("results").forEach(results::add);
        results.sort(Comparator.comparingInt(r -> r.get("index").asInt()));
        float[] expected = scores(QUERY, DOCUMENTS);
        assertThat(results).hasSize(4);
        for (int i = 0; i < 4; i++) {
            assertThat(results.get(i).get("index").asInt()).isEqualTo(i);
            assertThat(results.get(i).get("relevance_score").floatValue()).isEqualTo(expected[i]);
        }
    }

    @Test
    void theQueryChangesTheScores() throws Exception {
        Map<Integer, Float> one = byIndex(ok(server.post("/v1/rerank", rerank("tiny-rerank", QUERY, DOCUMENTS, "")))
                .get("results"));
        String other = "The quick brown fox";
        Map<Integer, Float> two = byIndex(ok(server.post("/v1/rerank", rerank("tiny-rerank", other, DOCUMENTS, "")))
                .get("results"));
        assertThat(two).isNotEqualTo(one);
        float[] expected = scores(other, DOCUMENTS);
        for (int i = 0; i < expected.length; i++) {
            assertThat(two.get(i)).isEqualTo(expected[i]);
        }
    }

    @Test
    void theRerankerIsListedAsOneAndRefusedForWhatItCannotDo() throws Exception {
        JsonNode listed = null;
        for (JsonNode m : ok(server.get("/v1/models")).get("data")) {
            if (m.get("id").asText().equals("tiny-rerank")) {
                listed = m;
            }
        }
        assertThat(listed).isNotNull();
        assertThat(listed.get("engine").asText()).isEqualTo("llama.cpp");
        assertThat(listed.at("/capabilities/rerank").asBoolean()).isTrue();
        assertThat(listed.at("/capabilities/embedding").asBoolean()).isFalse();
        assertThat(listed.at("/gguf/architecture").asText()).isEqualTo("bert");
        assertThat(listed.get("context_length").asInt()).isEqualTo(512);
        JsonNode show = ok(server.post("/api/show", "{\"model\":\"tiny-rerank\"}"));
        List<String> capabilities = new ArrayList<>();
        show.get("capabilities").forEach(c -> capabilities.add(c.asText()));
        assertThat(capabilities).containsExactly("rerank");

        TestServer.Reply embed = server.post("/v1/embeddings", "{\"model\":\"tiny-rerank\",\"input\":\"cores\"}");
        assertThat(embed.status()).isEqualTo(400);
        assertThat(embed.body()).contains("is a reranker");
        TestServer.Reply chat = server.post("/v1/chat/completions",
                "{\"model\":\"tiny-rerank\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        assertThat(chat.status()).isEqualTo(400);
        TestServer.Reply embedderRanks = server.post("/v1/rerank", rerank("tiny-embed", QUERY, DOCUMENTS, ""));
        assertThat(embedderRanks.status()).isEqualTo(400);
        assertThat(embedderRanks.body()).contains("is not a reranker").contains("rerankers: [tiny-rerank]");
        // with no model named, the only reranker
        JsonNode unnamed = ok(server.post("/v1/rerank", "{\"query\":" + TestServer.JSON.valueToTree(QUERY)
                + ",\"documents\":" + TestServer.JSON.valueToTree(DOCUMENTS) + "}"));
        assertThat(unnamed.get("model").asText()).isEqualTo("tiny-rerank");
    }

    @Test
    void embeddingsAreTheLibrarysMeanOfTheTokensNormalisedOnEveryRoute() throws Exception {
        List<String> texts = List.of("The NPU has three cores.", "Boot from eMMC, então.");
        JsonNode openAi = ok(server.post("/v1/embeddings", "{\"model\":\"tiny-embed\",\"input\":"
                + TestServer.JSON.valueToTree(texts) + "}"));
        JsonNode ollama = ok(server.post("/api/embed", "{\"model\":\"tiny-embed\",\"input\":"
                + TestServer.JSON.valueToTree(texts) + "}"));
        JsonNode older = ok(server.post("/api/embeddings", "{\"model\":\"tiny-embed\",\"prompt\":"
                + TestServer.JSON.valueToTree(texts.get(1)) + "}"));
        for (int i = 0; i < texts.size(); i++) {
            float[] expected = embedding(texts.get(i));
            float[] fromOpenAi = EmbeddingsApiTest.floats(openAi.get("data").get(i).get("embedding"));
            float[] fromOllama = EmbeddingsApiTest.floats(ollama.get("embeddings").get(i));
            assertThat(fromOpenAi).hasSize(64);
            assertThat(EmbeddingsApiTest.norm(fromOpenAi)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
            assertThat(fromOpenAi).containsExactly(expected, within(1e-6f));
            assertThat(fromOllama).containsExactly(fromOpenAi);
        }
        assertThat(EmbeddingsApiTest.floats(older.get("embedding")))
                .containsExactly(EmbeddingsApiTest.floats(openAi.get("data").get(1).get("embedding")));
        int tokens = texts.stream().mapToInt(t -> embedder.tokenize(t, true, true).length).sum();
        assertThat(openAi.at("/usage/prompt_tokens").asInt()).isEqualTo(tokens);
        assertThat(ollama.get("prompt_eval_count").asInt()).isEqualTo(tokens);
    }

    @Test
    void aDocumentLongerThanTheModelTakesIsCutAndAQueryThatLeavesNoRoomIsRefused() throws Exception {
        String longDocument = "The board has four big cores. ".repeat(120);
        JsonNode cut = ok(server.post("/v1/rerank", rerank("tiny-rerank", QUERY, List.of("four cores", longDocument),
                "")));
        Map<Integer, Float> scores = byIndex(cut.get("results"));
        assertThat(scores.get(0)).isEqualTo(score(QUERY, "four cores"));
        assertThat(scores.get(1)).isFinite();
        assertThat(cut.at("/usage/prompt_tokens").asInt()).isLessThanOrEqualTo(2 * 512);

        TestServer.Reply noRoom = server.post("/v1/rerank", rerank("tiny-rerank", longDocument, List.of("four cores"),
                ""));
        assertThat(noRoom.status()).as(noRoom.body()).isEqualTo(400);
        assertThat(noRoom.json().at("/error/param").asText()).isEqualTo("query");
        assertThat(ok(server.post("/v1/rerank", rerank("tiny-rerank", QUERY, DOCUMENTS, ""))).get("results").size())
                .isEqualTo(4);
    }

    /**
     * Texts the pipeline's estimate lets through (it counts a non-ASCII character as one token) but the model's
     * tokenizer finds too long (the tiny vocabulary has no merges for them: two byte tokens each): the backend's
     * own count refuses them with a 400, and the models keep serving.
     */
    @Test
    void whatTheEstimateMissesTheModelsOwnCountRefusesWithA400() throws Exception {
        String accents = "é".repeat(300);
        assertThat(embedder.tokenize(accents, true, true).length).isGreaterThan(512);
        TestServer.Reply embed = server.post("/v1/embeddings", "{\"model\":\"tiny-embed\",\"input\":[\"short\",\""
                + accents + "\"],\"truncate\":false}");
        assertThat(embed.status()).as(embed.body()).isEqualTo(400);
        assertThat(embed.json().at("/error/code").asText()).isEqualTo("context_length_exceeded");
        assertThat(embed.json().at("/error/param").asText()).isEqualTo("input");
        assertThat(embed.body()).contains("Input 1 is too long");

        TestServer.Reply rank = server.post("/v1/rerank", rerank("tiny-rerank", accents, List.of("four cores"), ""));
        assertThat(rank.status()).as(rank.body()).isEqualTo(400);
        assertThat(rank.json().at("/error/param").asText()).isEqualTo("query");
        assertThat(rank.body()).contains("too long for the model").contains("reads at most 512");

        assertThat(ok(server.post("/v1/embeddings", "{\"model\":\"tiny-embed\",\"input\":\"short\"}"))
                .get("data").size()).isEqualTo(1);
        assertThat(ok(server.post("/v1/rerank", rerank("tiny-rerank", QUERY, DOCUMENTS, ""))).get("results").size())
                .isEqualTo(4);
    }
}
