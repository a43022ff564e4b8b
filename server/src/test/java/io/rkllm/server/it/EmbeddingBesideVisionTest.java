package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An embedding model beside a vision model: an embedding run is an {@code rkllm_run} like any other, so a vision
 * model's encoder never runs while one is in progress; and a vision model takes the NPU alone (the embedding model
 * included) unless {@code vision.co_resident}.
 */
class EmbeddingBesideVisionTest {
    private static final String PICTURE = VisionTest.chat(VisionTest.VL, VisionTest.imageMessage("What is this?",
            VisionTest.dataUrl(VisionTest.png(), "png")));

    @TempDir
    Path dir;

    private static List<String> loaded(TestServer server) throws Exception {
        return server.getForReply("/health").json().get("loaded_models").findValuesAsText("id");
    }

    /** The calls of a shared trace in the order they were written: model:call, or encoder:call for the RKNN's. */
    private static List<String> calls(Path trace) throws IOException {
        Map<Integer, String> models = new HashMap<>();
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(trace)) {
            JsonNode node = TestServer.JSON.readTree(line);
            String call = node.get("call").asText();
            // the two runtimes number their handles and contexts each from 1: tell their lines apart by content
            boolean encoder = switch (call) {
                case "inputs_set", "outputs_get", "outputs_release", "query", "set_core_mask" -> true;
                case "init" -> !node.has("abi");
                case "run" -> !node.has("mode");
                default -> false;
            };
            if (encoder) {
                out.add("encoder:" + call);
                continue;
            }
            int handle = node.path("handle").asInt();
            if (call.equals("init")) {
                models.put(handle, node.get("model").asText());
            }
            out.add(models.get(handle) + ":" + call);
        }
        return out;
    }

    @Test
    void theEncoderWaitsForTheEmbeddingRunInProgress() throws Exception {
        Path trace = dir.resolve("npu.trace.jsonl");
        Map<String, String> embedding = new LinkedHashMap<>(EmbeddingsApiTest.EMBEDDING);
        // each embedding run takes 800 ms on the NPU
        embedding.putAll(Map.of("time_scale", "1", "init_ms", "0", "run_overhead_ms", "800", "prefill_tps", "100000",
                "trace", trace.toString()));
        embedding.put("trace_run_start", "1");
        Map<String, String> encoder = new LinkedHashMap<>(VisionTest.ENCODER);
        encoder.put("trace", trace.toString());
        Map<String, String> language = new LinkedHashMap<>(VisionTest.LANGUAGE_MODEL);
        language.put("trace", trace.toString());
        try (TestServer server = TestServer.in(dir).model(VisionTest.VL, language).encoder(VisionTest.VL, encoder)
                .model("e", embedding).sidecar("e", EmbeddingsApiTest.SIDECAR)
                .set("vision.co_resident", "true").start()) {
            assertThat(server.postForReply("/v1/chat/completions", VisionTest.chat(VisionTest.VL,
                    VisionTest.text("user", "Hi."))).status()).isEqualTo(200);
            CompletableFuture<TestServer.Reply> embedded = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.postForReply("/v1/embeddings", EmbeddingsApiTest.body("[\"one\", \"two\"]", ""));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            // the second run has begun: it is on the NPU for the next 800 ms (waiting for the first run's end
            // instead left a gap before the second, in which a busy machine let the encoder go first)
            Poll.until("the second embedding run", Duration.ofSeconds(30),
                    () -> calls(trace).stream().filter("e:run_start"::equals).count(), n -> n >= 2);
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", PICTURE);
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(embedded.get().status()).isEqualTo(200);
            assertThat(loaded(server)).containsExactlyInAnyOrder(VisionTest.VL, "e");

            List<String> calls = calls(trace);
            int secondEmbedding = calls.lastIndexOf("e:run");
            int encoderInput = calls.indexOf("encoder:inputs_set");
            assertThat(encoderInput).as(calls.toString()).isPositive();
            assertThat(secondEmbedding).as("the embedding run in progress ended before the encoder took its picture: "
                    + calls).isLessThan(encoderInput);
        }
    }

    @Test
    void aVisionModelTakesTheEmbeddingModelsPlaceUnlessCoResidencyIsConfigured() throws Exception {
        try (TestServer server = TestServer.in(dir.resolve("alone")).model(VisionTest.VL, VisionTest.LANGUAGE_MODEL)
                .encoder(VisionTest.VL, VisionTest.ENCODER).model("e", EmbeddingsApiTest.EMBEDDING)
                .sidecar("e", EmbeddingsApiTest.SIDECAR).start()) {
            assertThat(server.postForReply("/v1/embeddings", EmbeddingsApiTest.body("\"hi\"", "")).status())
                    .isEqualTo(200);
            assertThat(server.postForReply("/v1/chat/completions", PICTURE).status()).isEqualTo(200);
            assertThat(loaded(server)).containsExactly(VisionTest.VL);
            assertThat(server.postForReply("/v1/embeddings", EmbeddingsApiTest.body("\"hi\"", "")).status())
                    .isEqualTo(200);
            assertThat(loaded(server)).containsExactly("e");
        }
        try (TestServer server = TestServer.in(dir.resolve("beside")).model(VisionTest.VL, VisionTest.LANGUAGE_MODEL)
                .encoder(VisionTest.VL, VisionTest.ENCODER).model("e", EmbeddingsApiTest.EMBEDDING)
                .sidecar("e", EmbeddingsApiTest.SIDECAR).set("vision.co_resident", "true").start()) {
            assertThat(server.postForReply("/v1/embeddings", EmbeddingsApiTest.body("\"hi\"", "")).status())
                    .isEqualTo(200);
            assertThat(server.postForReply("/v1/chat/completions", PICTURE).status()).isEqualTo(200);
            assertThat(loaded(server)).containsExactlyInAnyOrder("e", VisionTest.VL);
        }
    }
}
