package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.ffm.Abi;
import io.rkllm.ffm.HiddenLayer;
import io.rkllm.ffm.Model;
import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.ffm.RunControl;
import io.rkllm.ffm.RunInput;
import io.rkllm.ffm.SimulatedRuntime;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code POST /v1/embeddings}, {@code /api/embed} and {@code /api/embeddings} against a simulated embedding model
 * (Qwen3-Embedding's family defaults) beside a chat model: shapes, order, normalisation, framing, base64,
 * dimensions, truncation, wrong model kinds, and a runtime fault in the middle of a batch.
 */
class EmbeddingsApiTest {
    static final int WIDTH = 16;
    /** An embedding model of the Qwen3-Embedding family (its name does not say so: the sidecar does). */
    static final Map<String, String> EMBEDDING = Map.of("kind", "embedding", "embd_size", Integer.toString(WIDTH));
    static final String SIDECAR = "kind: embedding\nfamily: qwen3-embedding\nembedding:\n  dimensions: 16\n";

    @TempDir
    Path dir;

    private TestServer.Builder server() {
        return TestServer.in(dir).model("m", Map.of()).model("e", EMBEDDING).sidecar("e", SIDECAR);
    }

    static String body(String input, String extra) {
        return "{\"model\":\"e\",\"input\":" + input + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    static float[] floats(JsonNode array) {
        float[] out = new float[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) array.get(i).asDouble();
        }
        return out;
    }

    static List<float[]> vectors(TestServer.Reply reply) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        List<float[]> out = new ArrayList<>();
        JsonNode data = reply.json().get("data");
        for (int i = 0; i < data.size(); i++) {
            assertThat(data.get(i).get("index").asInt()).isEqualTo(i);
            out.add(floats(data.get(i).get("embedding")));
        }
        return out;
    }

    static double norm(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        return Math.sqrt(sum);
    }

    static float[] normalized(float[] v) {
        double n = norm(v);
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (v[i] / n);
        }
        return out;
    }

    static void assertClose(float[] actual, float[] expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.length; i++) {
            assertThat(actual[i]).as("component %d", i).isCloseTo(expected[i], within(1e-6f));
        }
    }

    /** The rows the simulated runtime gives for {@code prompt} on an empty template, through the binding itself. */
    private List<float[]> rowsOf(String prompt) throws Exception {
        Path lib = SimulatedRuntime.extract(Abi.V1_3, dir.resolve("direct-lib")).orElseThrow();
        Path file = dir.resolve("direct.rkllm");
        Files.writeString(file, "#rkllm-sim 1\nkind: embedding\ntime_scale: 0\nembd_size: " + WIDTH + "\n");
        RkllmRuntime runtime = RkllmRuntime.open(lib, Optional.of(Abi.V1_3));
        try (Model model = runtime.load(runtime.defaultParams().withModelPath(file).withMaxContextLen(4096))) {
            model.setChatTemplate("", "", "");
            HiddenLayer result = model.lastHiddenLayer(RunInput.user(prompt, false), new RunControl());
            assertThat(result).isInstanceOf(HiddenLayer.States.class);
            return ((HiddenLayer.States) result).rows();
        }
    }

    @Test
    void aNulInATextIsLeftOutInsteadOfEndingThePrompt() throws Exception {
        try (TestServer server = server().start()) {
            List<float[]> vectors = vectors(server.postForReply("/v1/embeddings",
                    body("[\"Hello\\u0000 there\", \"Hello there\", \"\\u0000\"]", "")));
            assertThat(vectors.get(0)).isEqualTo(vectors.get(1));
            assertThat(server.runs("e")).extracting(r -> r.get("prefilled_text").asText())
                    .containsExactly("Hello there<|endoftext|>", "Hello there<|endoftext|>", "<|endoftext|>");
        }
    }

    @Test
    void oneTextGivesTheLastRowOfTheTextAndItsEndMarkerNormalised() throws Exception {
        try (TestServer server = server().start()) {
            TestServer.Reply reply = server.postForReply("/v1/embeddings", body("\"Hello there\"", ""));
            List<float[]> vectors = vectors(reply);
            JsonNode json = reply.json();
            assertThat(json.get("object").asText()).isEqualTo("list");
            assertThat(json.get("model").asText()).isEqualTo("e");
            assertThat(json.at("/data/0/object").asText()).isEqualTo("embedding");
            assertThat(vectors).hasSize(1);
            assertThat(norm(vectors.getFirst())).isCloseTo(1.0, within(1e-5));

            // framed as Qwen3-Embedding was trained: the text and <|endoftext|>, no chat template, cache empty
            JsonNode run = server.runs("e").getLast();
            assertThat(run.get("mode").asInt()).isEqualTo(1);
            assertThat(run.get("keep_history").asInt()).isZero();
            assertThat(run.get("cache_before").asInt()).isZero();
            assertThat(run.get("prefilled_text").asText()).isEqualTo("Hello there<|endoftext|>");
            assertThat(server.trace("e")).anySatisfy(line -> {
                assertThat(line.get("call").asText()).isEqualTo("set_chat_template");
                assertThat(line.get("system_prompt").asText()).isEmpty();
                assertThat(line.get("prompt_prefix").asText()).isEmpty();
                assertThat(line.get("prompt_postfix").asText()).isEmpty();
            });
            // usage is the runtime's own count: Hello, there, <|endoftext|>
            assertThat(json.at("/usage/prompt_tokens").asInt()).isEqualTo(run.get("prefill_tokens").asInt())
                    .isEqualTo(3);
            assertThat(json.at("/usage/total_tokens").asInt()).isEqualTo(3);

            assertClose(vectors.getFirst(), normalized(rowsOf("Hello there<|endoftext|>").getLast()));
        }
    }

    @Test
    void meanPoolingAveragesEveryRow() throws Exception {
        try (TestServer server = TestServer.in(dir).model("e", EMBEDDING)
                .sidecar("e", SIDECAR + "  pooling: mean\n").start()) {
            float[] vector = vectors(server.postForReply("/v1/embeddings", body("\"Hello there\"", ""))).getFirst();
            List<float[]> rows = rowsOf("Hello there<|endoftext|>");
            float[] mean = new float[WIDTH];
            for (int i = 0; i < WIDTH; i++) {
                double sum = 0;
                for (float[] row : rows) {
                    sum += row[i];
                }
                mean[i] = (float) (sum / rows.size());
            }
            assertClose(vector, normalized(mean));
        }
    }

    @Test
    void aBatchComesBackInInputOrderAndEqualTextsGiveEqualVectors() throws Exception {
        try (TestServer server = server().start()) {
            List<String> texts = List.of("alpha", "a longer second text", "alpha", "gamma ray");
            List<float[]> batch = vectors(server.postForReply("/v1/embeddings", body(
                    "[" + String.join(",", texts.stream().map(ChatCompletionsTest::quote).toList()) + "]", "")));
            assertThat(batch).hasSize(4);
            for (int i = 0; i < texts.size(); i++) {
                float[] single = vectors(server.postForReply("/v1/embeddings",
                        body(ChatCompletionsTest.quote(texts.get(i)), ""))).getFirst();
                assertThat(batch.get(i)).as("input %d", i).isEqualTo(single);
                assertThat(norm(batch.get(i))).isCloseTo(1.0, within(1e-5));
            }
            assertThat(batch.get(2)).isEqualTo(batch.get(0));
            assertThat(batch.get(1)).isNotEqualTo(batch.get(0));
            assertThat(batch.get(3)).isNotEqualTo(batch.get(0)).isNotEqualTo(batch.get(1));
            // every text on an empty cache: the vector depends on nothing but the text
            assertThat(server.runs("e")).allSatisfy(run -> assertThat(run.get("cache_before").asInt()).isZero());
        }
    }

    @Test
    void base64IsTheLittleEndianFloat32OfTheSameVector() throws Exception {
        try (TestServer server = server().start()) {
            float[] plain = vectors(server.postForReply("/v1/embeddings", body("\"bytes\"", ""))).getFirst();
            TestServer.Reply reply = server.postForReply("/v1/embeddings",
                    body("\"bytes\"", "\"encoding_format\":\"base64\""));
            assertThat(reply.status()).isEqualTo(200);
            ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder().decode(reply.json().at("/data/0/embedding").asText()))
                    .order(ByteOrder.LITTLE_ENDIAN);
            float[] decoded = new float[bytes.remaining() / 4];
            bytes.asFloatBuffer().get(decoded);
            assertThat(decoded).isEqualTo(plain);

            ChatCompletionsTest.assertError(server.postForReply("/v1/embeddings",
                    body("\"x\"", "\"encoding_format\":\"int8\"")), 400, null);
        }
    }

    @Test
    void dimensionsShortenAndNormaliseAgainForAModelTrainedForIt() throws Exception {
        try (TestServer server = server().start()) {
            float[] full = vectors(server.postForReply("/v1/embeddings", body("\"short\"", ""))).getFirst();
            float[] eight = vectors(server.postForReply("/v1/embeddings", body("\"short\"", "\"dimensions\":8")))
                    .getFirst();
            assertThat(eight).hasSize(8);
            assertClose(eight, normalized(Arrays.copyOf(full, 8)));
            // the model's own width is no change; more than it is an error
            assertThat(vectors(server.postForReply("/v1/embeddings", body("\"short\"", "\"dimensions\":16")))
                    .getFirst()).isEqualTo(full);
            TestServer.Reply tooWide = server.postForReply("/v1/embeddings", body("\"short\"", "\"dimensions\":32"));
            ChatCompletionsTest.assertError(tooWide, 400, null);
            assertThat(tooWide.json().at("/error/param").asText()).isEqualTo("dimensions");
        }
        try (TestServer server = TestServer.in(dir).model("e", EMBEDDING)
                .sidecar("e", SIDECAR + "  matryoshka: false\n").start()) {
            TestServer.Reply refused = server.postForReply("/v1/embeddings", body("\"short\"", "\"dimensions\":8"));
            ChatCompletionsTest.assertError(refused, 400, null);
            assertThat(refused.json().at("/error/message").asText()).contains("not trained for shortened vectors");
        }
    }

    @Test
    void aTextTooLongIsRefusedUnlessTruncationIsAsked() throws Exception {
        String longText = ChatCompletionsTest.quote("word ".repeat(200));
        try (TestServer server = TestServer.in(dir).model("e", Map.of("kind", "embedding", "embd_size", "16",
                "max_context_limit", "64")).sidecar("e", SIDECAR + "context_length: 64\n").start()) {
            TestServer.Reply refused = server.postForReply("/v1/embeddings", body(longText, ""));
            ChatCompletionsTest.assertError(refused, 400, "context_length_exceeded");
            assertThat(refused.json().at("/error/param").asText()).isEqualTo("input");
            assertThat(server.runs("e")).isEmpty();

            TestServer.Reply cut = server.postForReply("/v1/embeddings", body(longText, "\"truncate\":true"));
            assertThat(cut.status()).as(cut.body()).isEqualTo(200);
            assertThat(cut.header("X-RKLLM-Truncated")).isEqualTo("1 of 1 inputs cut to fit the model");
            JsonNode run = server.runs("e").getLast();
            assertThat(run.get("result").asText()).isEqualTo("finish");
            assertThat(run.get("prefill_tokens").asInt()).isLessThanOrEqualTo(64);
            assertThat(run.get("prefilled_text").asText()).startsWith("word word").endsWith("<|endoftext|>");

            // Ollama's /api/embed truncates unless told not to, as Ollama does
            TestServer.Reply ollama = server.postForReply("/api/embed", body(longText, ""));
            assertThat(ollama.status()).as(ollama.body()).isEqualTo(200);
            TestServer.Reply strict = server.postForReply("/api/embed", body(longText, "\"truncate\":false"));
            assertThat(strict.status()).isEqualTo(400);
            assertThat(strict.json().get("error").asText()).contains("more than the 64");
        }
    }

    @Test
    void aQueryGetsTheModelsInstructionAndADocumentNothing() throws Exception {
        try (TestServer server = server().start()) {
            assertThat(server.postForReply("/v1/embeddings", body("\"What is an NPU?\"",
                    "\"input_type\":\"query\"")).status()).isEqualTo(200);
            assertThat(server.runs("e").getLast().get("prefilled_text").asText()).isEqualTo("Instruct: Given a web "
                    + "search query, retrieve relevant passages that answer the query\nQuery: What is an NPU?"
                    + "<|endoftext|>");
            assertThat(server.postForReply("/v1/embeddings", body("\"An NPU runs networks.\"",
                    "\"input_type\":\"search_document\"")).status()).isEqualTo(200);
            assertThat(server.runs("e").getLast().get("prefilled_text").asText())
                    .isEqualTo("An NPU runs networks.<|endoftext|>");
            ChatCompletionsTest.assertError(server.postForReply("/v1/embeddings", body("\"x\"",
                    "\"input_type\":\"question\"")), 400, null);
        }
    }

    @Test
    void theTemplateFramingSendsTheTextAsAUserTurn() throws Exception {
        try (TestServer server = TestServer.in(dir).model("e", EMBEDDING)
                .sidecar("e", SIDECAR + "  framing: template\n").start()) {
            assertThat(server.postForReply("/v1/embeddings", body("\"Hello there\"", "")).status()).isEqualTo(200);
            JsonNode run = server.runs("e").getLast();
            assertThat(run.get("prefilled_text").asText()).endsWith("<|im_start|>user\nHello there<|im_end|>\n"
                    + "<|im_start|>assistant\n");
            assertThat(server.trace("e")).noneSatisfy(line -> assertThat(line.get("call").asText())
                    .isEqualTo("set_chat_template"));
        }
    }

    @Test
    void ollamaShapesCarryTheSameVectors() throws Exception {
        try (TestServer server = server().start()) {
            List<float[]> openAi = vectors(server.postForReply("/v1/embeddings", body("[\"one\",\"two\"]", "")));

            TestServer.Reply embed = server.postForReply("/api/embed", "{\"model\":\"e:latest\",\"input\":[\"one\","
                    + "\"two\"]}");
            assertThat(embed.status()).as(embed.body()).isEqualTo(200);
            JsonNode json = embed.json();
            assertThat(json.get("model").asText()).isEqualTo("e:latest");
            assertThat(floats(json.at("/embeddings/0"))).isEqualTo(openAi.get(0));
            assertThat(floats(json.at("/embeddings/1"))).isEqualTo(openAi.get(1));
            assertThat(json.get("prompt_eval_count").asInt()).isEqualTo(4);
            assertThat(json.get("total_duration").asLong()).isPositive();
            assertThat(json.has("load_duration")).isTrue();

            TestServer.Reply single = server.postForReply("/api/embed", "{\"model\":\"e\",\"input\":\"one\"}");
            assertThat(floats(single.json().at("/embeddings/0"))).isEqualTo(openAi.get(0));

            TestServer.Reply legacy = server.postForReply("/api/embeddings", "{\"model\":\"e\",\"prompt\":\"two\"}");
            assertThat(legacy.status()).isEqualTo(200);
            assertThat(floats(legacy.json().get("embedding"))).isEqualTo(openAi.get(1));
        }
    }

    @Test
    void anOllamaRequestWithoutTextLoadsTheModel() throws Exception {
        try (TestServer server = server().start()) {
            TestServer.Reply reply = server.postForReply("/api/embed", "{\"model\":\"e\"}");
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.json().get("embeddings")).isEmpty();
            assertThat(server.getForReply("/api/ps").json().at("/models/0/name").asText()).isEqualTo("e:latest");
            assertThat(server.runs("e")).isEmpty();
            assertThat(server.postForReply("/api/embeddings", "{\"model\":\"e\"}").json().get("embedding")).isEmpty();
        }
    }

    @Test
    void anEmbeddingModelIsListedAsOneAndRefusesToChat() throws Exception {
        try (TestServer server = server().start()) {
            JsonNode models = server.getForReply("/v1/models").json().get("data");
            assertThat(models).anySatisfy(m -> {
                assertThat(m.get("id").asText()).isEqualTo("e");
                assertThat(m.at("/capabilities/embedding").asBoolean()).isTrue();
                assertThat(m.at("/capabilities/tools").asBoolean()).isFalse();
                assertThat(m.get("dimensions").asInt()).isEqualTo(16);
            });
            assertThat(models).anySatisfy(m -> {
                assertThat(m.get("id").asText()).isEqualTo("m");
                assertThat(m.at("/capabilities/embedding").asBoolean()).isFalse();
            });
            JsonNode tags = server.getForReply("/api/tags").json().get("models");
            assertThat(tags).anySatisfy(m -> {
                assertThat(m.get("name").asText()).isEqualTo("e:latest");
                assertThat(m.get("capabilities")).extracting(JsonNode::asText).containsExactly("embedding");
            });
            JsonNode show = server.postForReply("/api/show", "{\"model\":\"e\"}").json();
            assertThat(show.get("capabilities")).extracting(JsonNode::asText).containsExactly("embedding");
            assertThat(show.at("/model_info/qwen3.embedding_length").asInt()).isEqualTo(16);
            assertThat(server.postForReply("/api/show", "{\"model\":\"m\"}").json().get("capabilities"))
                    .extracting(JsonNode::asText).contains("completion").doesNotContain("embedding");

            TestServer.Reply chat = server.postForReply("/v1/chat/completions",
                    "{\"model\":\"e\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            ChatCompletionsTest.assertError(chat, 400, "model_not_supported");
            assertThat(chat.json().at("/error/message").asText()).contains("'e' is an embedding model")
                    .contains("/v1/embeddings").contains("Chat models: [m]");
            ChatCompletionsTest.assertError(server.postForReply("/v1/completions",
                    "{\"model\":\"e\",\"prompt\":\"hi\"}"), 400, "model_not_supported");
            TestServer.Reply ollama = server.postForReply("/api/chat",
                    "{\"model\":\"e\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertThat(ollama.status()).isEqualTo(400);
            assertThat(ollama.json().get("error").asText()).contains("embedding model");
            TestServer.Reply anthropic = server.postForReply("/v1/messages", "{\"model\":\"e\",\"max_tokens\":10,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertThat(anthropic.status()).isEqualTo(400);

            // a request without a model goes to the one chat model, not to the embedding model
            assertThat(server.postForReply("/v1/chat/completions",
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"[[say:ok]]\"}]}").status()).isEqualTo(200);
            assertThat(server.runs("e")).isEmpty();
        }
    }

    @Test
    void aChatModelRefusesToEmbed() throws Exception {
        try (TestServer server = server().start()) {
            TestServer.Reply reply = server.postForReply("/v1/embeddings", "{\"model\":\"m\",\"input\":\"hi\"}");
            ChatCompletionsTest.assertError(reply, 400, "model_not_supported");
            assertThat(reply.json().at("/error/param").asText()).isEqualTo("model");
            assertThat(reply.json().at("/error/message").asText()).contains("'m' is a chat model").contains("[e]");
            TestServer.Reply ollama = server.postForReply("/api/embed", "{\"model\":\"m\",\"input\":\"hi\"}");
            assertThat(ollama.status()).isEqualTo(400);
            assertThat(ollama.json().get("error").asText()).contains("chat model");
            assertThat(server.runs("m")).isEmpty();
            // without a model, the one embedding model
            assertThat(server.postForReply("/v1/embeddings", "{\"input\":\"hi\"}").status()).isEqualTo(200);
            ChatCompletionsTest.assertError(server.postForReply("/v1/embeddings", "{\"model\":\"nope\",\"input\":\"hi\"}"),
                    404, "model_not_found");
        }
    }

    @Test
    void badInputsAreRefusedNamingTheField() throws Exception {
        try (TestServer server = server().start()) {
            TestServer.Reply tokens = server.postForReply("/v1/embeddings", body("[1, 2, 3]", ""));
            ChatCompletionsTest.assertError(tokens, 400, "unsupported_input");
            assertThat(tokens.json().at("/error/message").asText()).contains("tiktoken");
            ChatCompletionsTest.assertError(server.postForReply("/v1/embeddings", body("[[1, 2], [3]]", "")), 400,
                    "unsupported_input");
            for (String input : new String[] {"[]", "42", "[\"ok\", null]", "{\"a\":1}"}) {
                TestServer.Reply reply = server.postForReply("/v1/embeddings", body(input, ""));
                ChatCompletionsTest.assertError(reply, 400, null);
                assertThat(reply.json().at("/error/param").asText()).isEqualTo("input");
            }
            ChatCompletionsTest.assertError(server.postForReply("/v1/embeddings", "{\"model\":\"e\"}"), 400, null);
            assertThat(server.runs("e")).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aRuntimeFaultMidBatchFailsTheRequestClearlyAndTheModelServesOn(Abi abi) throws Exception {
        try (TestServer server = server().abi(abi).start()) {
            TestServer.Reply failed = server.postForReply("/v1/embeddings",
                    body("[\"one\", \"two [[error]]\", \"three\"]", ""));
            ChatCompletionsTest.assertError(failed, 500, "runtime_error");
            assertThat(failed.json().at("/error/message").asText()).contains("on input 1 of 3")
                    .contains("the inputs after it were not embedded");
            List<JsonNode> runs = server.runs("e");
            assertThat(runs).hasSize(2);
            assertThat(runs.get(1).get("result").asText()).isEqualTo("error");

            List<float[]> after = vectors(server.postForReply("/v1/embeddings", body("[\"one\", \"three\"]", "")));
            assertThat(after).hasSize(2);
            assertThat(server.runs("e").getLast().get("cache_before").asInt()).isZero();
            String exposition = server.getForReply("/metrics").body();
            assertThat(exposition).contains("rkllm_embedding_failures_total{code=\"runtime_error\",model=\"e\"} 1.0");
            assertThat(exposition).contains("rkllm_embedding_inputs_total{model=\"e\"} 2.0");
        }
    }
}
