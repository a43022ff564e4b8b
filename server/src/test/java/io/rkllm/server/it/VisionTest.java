package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.ffm.Abi;
import io.rkllm.server.pipeline.vision.TestPictures;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pictures end to end, through the simulated RKNN runtime (the encoder) and the simulated RKLLM runtime (the
 * language model): their traces tell which picture the encoder got (its RGB digest, after the server's decoding,
 * turning and fitting) and that the encoder's result reached the language model (the encoder's
 * {@code embedding_digest} is the digest the RKLLM trace shows for that image).
 */
class VisionTest {
    /** A Qwen3-VL stand-in: its name gives the Qwen-VL image tags; small pictures and embeddings, no delays. */
    static final String VL = "qwen3-vl";
    static final Map<String, String> LANGUAGE_MODEL = Map.of("image_embed_dim", "32");
    static final Map<String, String> ENCODER = Map.of("input_width", "32", "input_height", "32",
            "image_tokens", "4", "embed_dim", "16", "outputs", "2");

    @TempDir
    Path dir;

    static String png() {
        return Base64.getEncoder().encodeToString(TestPictures.png(TestPictures.quadrants(64, 32,
                BufferedImage.TYPE_INT_RGB)));
    }

    static String dataUrl(String base64, String type) {
        return "data:image/" + type + ";base64," + base64;
    }

    static ObjectNode imageMessage(String text, String... urls) {
        ObjectNode m = TestServer.JSON.createObjectNode().put("role", "user");
        ArrayNode content = m.putArray("content");
        content.addObject().put("type", "text").put("text", text);
        for (String url : urls) {
            content.addObject().put("type", "image_url").putObject("image_url").put("url", url);
        }
        return m;
    }

    static String chat(String model, JsonNode... messages) {
        ObjectNode body = TestServer.JSON.createObjectNode().put("model", model);
        ArrayNode array = body.putArray("messages");
        for (JsonNode m : messages) {
            array.add(m);
        }
        return body.toString();
    }

    static ObjectNode text(String role, String content) {
        return TestServer.JSON.createObjectNode().put("role", role).put("content", content);
    }

    private TestServer.Builder server() {
        return TestServer.in(dir).model(VL, LANGUAGE_MODEL).encoder(VL, ENCODER);
    }

    private static List<JsonNode> encoderRuns(TestServer server) {
        return server.encoderTrace(VL).stream().filter(l -> l.path("call").asText().equals("run")).toList();
    }

    /** The RKLLM run shows exactly the embeddings of these encoder runs, in order. */
    private static void assertReached(JsonNode run, List<JsonNode> encoded) {
        assertThat(run.get("input_type").asInt()).as("multimodal input").isEqualTo(3);
        JsonNode images = run.get("images");
        assertThat(images.get("n_image").asInt()).isEqualTo(encoded.size());
        assertThat(images.get("n_image_tokens").asInt()).isEqualTo(4);
        assertThat(images.get("image_width").asInt()).isEqualTo(32);
        assertThat(images.get("image_start").asText()).isEqualTo("<|vision_start|>");
        assertThat(images.get("image_content").asText()).isEqualTo("<|image_pad|>");
        List<String> digests = TestServer.JSON.convertValue(images.get("digests"),
                TestServer.JSON.getTypeFactory().constructCollectionType(List.class, String.class));
        assertThat(digests).containsExactlyElementsOf(encoded.stream().map(r -> r.get("embedding_digest").asText())
                .toList());
    }

    @Test
    void theEncodersCoresAreTheConfiguredOnes() throws Exception {
        // vision.encoder_cores is the RKLLM backend's own setting: it reaches rknn_set_core_mask from there
        try (TestServer server = server().set("vision.encoder_cores", "0_1").start()) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions",
                    chat(VL, imageMessage("What is this?", dataUrl(png(), "png"))));
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            List<JsonNode> masks = server.encoderTrace(VL).stream()
                    .filter(l -> l.path("call").asText().equals("set_core_mask")).toList();
            assertThat(masks).hasSize(1);
            assertThat(masks.getFirst().get("cores").asInt()).isEqualTo(2);
            assertThat(masks.getFirst().get("rc").asInt()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void onePictureGoesThroughTheEncoderToTheLanguageModel(Abi abi) throws Exception {
        try (TestServer server = server().abi(abi).start()) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions",
                    chat(VL, imageMessage("What is this?", dataUrl(png(), "png"))));
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.json().at("/choices/0/message/content").asText()).isNotBlank();
            List<JsonNode> encoded = encoderRuns(server);
            assertThat(encoded).hasSize(1);
            assertThat(encoded.getFirst().get("rc").asInt()).isZero();
            JsonNode run = server.runs(VL).getFirst();
            assertReached(run, encoded);
            assertThat(run.get("prompt").asText()).isEqualTo("<image>What is this?");
            assertThat(run.get("prefilled_text").asText()).contains("<|vision_start|><|image_pad|><|image_pad|>");
            // the picture's 4 tokens count in the prompt
            assertThat(reply.json().at("/usage/prompt_tokens").asInt()).isEqualTo(run.get("prefill_tokens").asInt());
            assertThat(server.trace(VL).getFirst().get("base_domain_id").asInt()).isEqualTo(1);
        }
    }

    @Test
    void twoPicturesInOrder() throws Exception {
        BufferedImage red = TestPictures.solid(20, 20, Color.RED);
        BufferedImage blue = TestPictures.solid(20, 20, Color.BLUE);
        String a = Base64.getEncoder().encodeToString(TestPictures.png(red));
        String b = Base64.getEncoder().encodeToString(TestPictures.png(blue));
        try (TestServer server = server().sidecar(VL, "vision: {max_images: 2}\n").start()) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions",
                    chat(VL, imageMessage("Compare them.", dataUrl(a, "png"), dataUrl(b, "png"))));
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            List<JsonNode> encoded = encoderRuns(server);
            assertThat(encoded).hasSize(2);
            assertThat(encoded.get(0).get("input_digest").asText())
                    .isNotEqualTo(encoded.get(1).get("input_digest").asText());
            JsonNode run = server.runs(VL).getFirst();
            assertReached(run, encoded);
            assertThat(run.get("prompt").asText()).isEqualTo("<image><image>Compare them.");

            TestServer.Reply tooMany = server.postForReply("/v1/chat/completions", chat(VL, imageMessage("Three?",
                    dataUrl(a, "png"), dataUrl(b, "png"), dataUrl(a, "png"))));
            assertThat(tooMany.status()).isEqualTo(400);
            assertThat(tooMany.json().at("/error/code").asText()).isEqualTo("too_many_images");
        }
    }

    @Test
    void everyApisPictureShapeReachesTheModel() throws Exception {
        String picture = png();
        try (TestServer server = server().start()) {
            TestServer.Reply ollamaChat = server.postForReply("/api/chat", "{\"model\":\"" + VL + "\",\"stream\":false,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"What is this?\",\"images\":[\"" + picture + "\"]}]}");
            assertThat(ollamaChat.status()).as(ollamaChat.body()).isEqualTo(200);
            TestServer.Reply generate = server.postForReply("/api/generate", "{\"model\":\"" + VL + "\",\"stream\":false,"
                    + "\"prompt\":\"Describe it.\",\"images\":[\"" + picture + "\"]}");
            assertThat(generate.status()).as(generate.body()).isEqualTo(200);
            TestServer.Reply anthropic = server.postForReply("/v1/messages", "{\"model\":\"" + VL + "\","
                    + "\"max_tokens\":50,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":"
                    + "{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"" + picture + "\"}},"
                    + "{\"type\":\"text\",\"text\":\"And now?\"}]}]}");
            assertThat(anthropic.status()).as(anthropic.body()).isEqualTo(200);
            TestServer.Reply openai = server.postForReply("/v1/chat/completions",
                    chat(VL, imageMessage("Once more.", dataUrl(picture, "png"))));
            assertThat(openai.status()).as(openai.body()).isEqualTo(200);
            TestServer.Reply responses = server.postForReply("/v1/responses", "{\"model\":\"" + VL + "\",\"input\":"
                    + "[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"Last time.\"},"
                    + "{\"type\":\"input_image\",\"image_url\":\"" + dataUrl(picture, "png") + "\"}]}]}");
            assertThat(responses.status()).as(responses.body()).isEqualTo(200);

            List<JsonNode> encoded = encoderRuns(server);
            assertThat(encoded).as("one picture, encoded once, then cached").hasSize(1);
            List<JsonNode> runs = server.runs(VL);
            assertThat(runs).hasSize(5);
            for (JsonNode run : runs) {
                assertReached(run, encoded);
            }
            assertThat(runs).extracting(r -> r.get("prompt").asText()).containsExactly("<image>What is this?",
                    "<image>Describe it.", "<image>And now?", "<image>Once more.", "<image>Last time.");
        }
    }

    @Test
    void aFollowUpResendsThePictureFromTheCacheWithoutRunningTheEncoder() throws Exception {
        String url = dataUrl(png(), "png");
        try (TestServer server = server().start()) {
            JsonNode first = imageMessage("What is this?", url);
            TestServer.Reply one = server.postForReply("/v1/chat/completions", chat(VL, first));
            assertThat(one.status()).as(one.body()).isEqualTo(200);
            String answer = one.json().at("/choices/0/message/content").asText();
            // Open WebUI sends the picture again with every turn
            TestServer.Reply two = server.postForReply("/v1/chat/completions", chat(VL, first,
                    text("assistant", answer), text("user", "What colour is the top left?")));
            assertThat(two.status()).as(two.body()).isEqualTo(200);
            List<JsonNode> encoded = encoderRuns(server);
            assertThat(encoded).as("the encoder ran for the first turn only").hasSize(1);
            List<JsonNode> runs = server.runs(VL);
            // the safe policy: the picture turn is resent whole, its embedding from the cache
            assertThat(runs.get(0).get("keep_history").asInt()).isZero();
            assertReached(runs.get(1), encoded);
            assertThat(runs.get(1).get("prompt").asText()).startsWith("User: <image>What is this?")
                    .endsWith("User: What colour is the top left?");
            assertThat(runs.get(1).get("keep_history").asInt()).isZero();
            Exposition metrics = Exposition.text(server.getForReply("/metrics").body());
            assertThat(metrics.get("rkllm_vision_images_total", Map.of("model", VL, "source", "encoder")))
                    .isEqualTo(1.0);
            assertThat(metrics.get("rkllm_vision_images_total", Map.of("model", VL, "source", "cache")))
                    .isEqualTo(1.0);
            assertThat(metrics.get("rkllm_vision_encode_duration_seconds_count", Map.of("model", VL)))
                    .isEqualTo(1.0);
        }
    }

    @Test
    void withTheIncrementalPolicyAFollowUpSendsOnlyTheNewText() throws Exception {
        String url = dataUrl(png(), "png");
        try (TestServer server = server().set("vision.cache_policy", "incremental").start()) {
            JsonNode first = imageMessage("What is this?", url);
            TestServer.Reply one = server.postForReply("/v1/chat/completions", chat(VL, first));
            String answer = one.json().at("/choices/0/message/content").asText();
            TestServer.Reply two = server.postForReply("/v1/chat/completions", chat(VL, first,
                    text("assistant", answer), text("user", "And the colours?")));
            assertThat(two.status()).as(two.body()).isEqualTo(200);
            List<JsonNode> runs = server.runs(VL);
            assertThat(runs.get(0).get("keep_history").asInt()).isEqualTo(1);
            assertThat(runs.get(1).get("input_type").asInt()).as("text only").isZero();
            assertThat(runs.get(1).get("prompt").asText()).isEqualTo("And the colours?");
            assertThat(runs.get(1).get("cache_before").asInt()).isEqualTo(runs.get(0).get("cache_after").asInt());
            assertThat(two.json().at("/usage/prompt_tokens_details/cached_tokens").asInt())
                    .isEqualTo(runs.get(0).get("cache_after").asInt());
            assertThat(encoderRuns(server)).hasSize(1);
        }
    }

    @Test
    void aTextModelLeavesOutPicturesOfEarlierMessagesAndSaysSo() throws Exception {
        try (TestServer server = server().model("text", Map.of()).start()) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("text",
                    imageMessage("What is this <image> tag?", dataUrl(png(), "png")), text("assistant", "A picture."),
                    text("user", "Tell me more.")));
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.header("X-RKLLM-Images-Ignored")).contains("1 picture").contains("text only");
            JsonNode run = server.runs("text").getFirst();
            assertThat(run.get("input_type").asInt()).isZero();
            assertThat(run.get("prompt").asText()).contains("What is this <image> tag?").endsWith("Tell me more.");
            assertThat(encoderRuns(server)).isEmpty();
        }
    }

    @Test
    void aPictureInTheNewestMessageToATextModelNamesTheVisionModels() throws Exception {
        try (TestServer server = server().model("text", Map.of()).start()) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("text",
                    imageMessage("What is this?", dataUrl(png(), "png"))));
            assertThat(reply.status()).isEqualTo(400);
            assertThat(reply.json().at("/error/code").asText()).isEqualTo("unsupported_content");
            assertThat(reply.json().at("/error/message").asText()).contains("reads text only").contains(VL);
            assertThat(server.runs("text")).isEmpty();
        }
        try (TestServer server = TestServer.in(dir.resolve("ignore")).model("text", Map.of())
                .set("vision.text_model_images", "ignore").start()) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat("text",
                    imageMessage("What is this?", dataUrl(png(), "png"))));
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.header("X-RKLLM-Images-Ignored")).contains("1 picture");
        }
    }

    @Test
    void aVisionModelShowsThePicturesOfTheNewestMessageThatHasAny() throws Exception {
        String red = dataUrl(Base64.getEncoder().encodeToString(TestPictures.png(TestPictures.solid(8, 8,
                Color.RED))), "png");
        String blue = dataUrl(Base64.getEncoder().encodeToString(TestPictures.png(TestPictures.solid(8, 8,
                Color.BLUE))), "png");
        try (TestServer server = server().start()) {
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat(VL,
                    imageMessage("First <image> here.", red), text("assistant", "Red."),
                    imageMessage("Second.", blue), text("assistant", "Blue."), text("user", "Which was last?")));
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.header("X-RKLLM-Images-Ignored")).contains("1 picture of earlier messages");
            List<JsonNode> encoded = encoderRuns(server);
            assertThat(encoded).hasSize(1);
            JsonNode run = server.runs(VL).getFirst();
            assertReached(run, encoded);
            assertThat(run.get("prompt").asText()).contains("User: First <image > here.")
                    .contains("User: <image>Second.");
        }
    }

    @Test
    void webpGivesTheEncoderTheSamePixelsAsPng() throws Exception {
        String webp = Base64.getEncoder().encodeToString(TestPictures.webpQuadrants());
        try (TestServer server = server().start()) {
            assertThat(server.postForReply("/v1/chat/completions", chat(VL, imageMessage("PNG.",
                    dataUrl(png(), "png")))).status()).isEqualTo(200);
            TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat(VL, imageMessage("WebP.",
                    dataUrl(webp, "webp"))));
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            List<JsonNode> encoded = encoderRuns(server);
            assertThat(encoded).as("another file, so another digest: encoded again").hasSize(2);
            assertThat(encoded.get(1).get("input_digest").asText()).isEqualTo(encoded.get(0).get("input_digest")
                    .asText());
        }
    }

    @Test
    void aRotatedPhotoReachesTheEncoderUpright() throws Exception {
        // grey blocks aligned on JPEG's 8x8 blocks decode exactly, turned or not
        BufferedImage upright = new BufferedImage(32, 64, BufferedImage.TYPE_BYTE_GRAY);
        BufferedImage stored = new BufferedImage(64, 32, BufferedImage.TYPE_BYTE_GRAY);
        int[] shades = {40, 120, 200, 250};
        for (int i = 0; i < 4; i++) {
            fill(upright, (i % 2) * 16, (i / 2) * 32, 16, 32, shades[i]);
        }
        // the same picture stored a quarter turn anticlockwise, as a phone's sensor gives it (EXIF orientation 6)
        for (int y = 0; y < 64; y++) {
            for (int x = 0; x < 32; x++) {
                stored.getRaster().setSample(y, 31 - x, 0, upright.getRaster().getSample(x, y, 0));
            }
        }
        String photo = Base64.getEncoder().encodeToString(TestPictures.withOrientation(TestPictures.jpeg(stored), 6));
        String reference = Base64.getEncoder().encodeToString(TestPictures.jpeg(upright));
        try (TestServer server = server().start()) {
            assertThat(server.postForReply("/v1/chat/completions", chat(VL, imageMessage("Upright.",
                    dataUrl(reference, "jpeg")))).status()).isEqualTo(200);
            assertThat(server.postForReply("/v1/chat/completions", chat(VL, imageMessage("Phone.",
                    dataUrl(photo, "jpeg")))).status()).isEqualTo(200);
            List<JsonNode> encoded = encoderRuns(server);
            assertThat(encoded).hasSize(2);
            assertThat(encoded.get(1).get("input_digest").asText()).isEqualTo(encoded.get(0).get("input_digest")
                    .asText());
        }
    }

    private static void fill(BufferedImage image, int x, int y, int w, int h, int value) {
        Graphics2D g = image.createGraphics();
        g.dispose();
        for (int j = y; j < y + h; j++) {
            for (int i = x; i < x + w; i++) {
                image.getRaster().setSample(i, j, 0, value);
            }
        }
    }

    @Test
    void aBombAndBrokenBase64AreRefusedBeforeAnythingRuns() throws Exception {
        String bomb = Base64.getEncoder().encodeToString(TestPictures.pngClaiming(100_000, 100_000));
        try (TestServer server = server().start()) {
            TestServer.Reply big = server.postForReply("/v1/chat/completions", chat(VL, imageMessage("Bomb.",
                    dataUrl(bomb, "png"))));
            assertThat(big.status()).isEqualTo(400);
            assertThat(big.json().at("/error/code").asText()).isEqualTo("image_too_large");
            assertThat(big.json().at("/error/param").asText()).isEqualTo("messages[0].content[1].image_url");
            TestServer.Reply broken = server.postForReply("/v1/chat/completions", chat(VL, imageMessage("Broken.",
                    "data:image/png;base64,iVBORw0KGgo*&^%")));
            assertThat(broken.status()).isEqualTo(400);
            assertThat(broken.json().at("/error/code").asText()).isEqualTo("invalid_image");
            TestServer.Reply notAPicture = server.postForReply("/v1/chat/completions", chat(VL, imageMessage("Text.",
                    dataUrl(Base64.getEncoder().encodeToString("hello".getBytes()), "png"))));
            assertThat(notAPicture.status()).isEqualTo(400);
            assertThat(notAPicture.json().at("/error/code").asText()).isEqualTo("unsupported_image_format");
            assertThat(encoderRuns(server)).isEmpty();
            assertThat(server.runs(VL)).isEmpty();
        }
    }

    @Test
    void aFailingEncoderFailsTheRequestAndTheModelServesOn() throws Exception {
        Map<String, String> failing = new LinkedHashMap<>(ENCODER);
        failing.put("fault", "run_error_after=1");
        try (TestServer server = TestServer.in(dir).model(VL, LANGUAGE_MODEL).encoder(VL, failing).start()) {
            assertThat(server.postForReply("/v1/chat/completions", chat(VL, imageMessage("One.",
                    dataUrl(png(), "png")))).status()).isEqualTo(200);
            String other = dataUrl(Base64.getEncoder().encodeToString(TestPictures.png(TestPictures.solid(9, 9,
                    Color.GREEN))), "png");
            TestServer.Reply failed = server.postForReply("/v1/chat/completions", chat(VL, imageMessage("Two.",
                    other)));
            assertThat(failed.status()).isEqualTo(500);
            assertThat(failed.json().at("/error/message").asText()).contains("image encoder failed")
                    .contains("rknn_run");
            assertThat(server.runs(VL)).hasSize(1);
            TestServer.Reply text = server.postForReply("/v1/chat/completions", chat(VL, text("user", "[[say:ok]]")));
            assertThat(text.status()).isEqualTo(200);
            assertThat(text.json().at("/choices/0/message/content").asText()).isEqualTo("ok");
            Exposition metrics = Exposition.text(server.getForReply("/metrics").body());
            assertThat(metrics.get("rkllm_vision_encoder_failures_total", Map.of("model", VL))).isEqualTo(1.0);
        }
    }

    @Test
    void aClientThatLeavesWhileThePictureIsEncodedCancelsTheRun() throws Exception {
        Map<String, String> slow = new LinkedHashMap<>(ENCODER);
        slow.put("time_scale", "1");
        slow.put("encode_ms", "4000");
        slow.put("init_ms", "0");
        try (TestServer server = TestServer.in(dir).model(VL, LANGUAGE_MODEL).encoder(VL, slow)
                .set("queue.keep_alive", "50ms").start()) {
            ObjectNode body = (ObjectNode) TestServer.JSON.readTree(chat(VL, imageMessage("Slow.",
                    dataUrl(png(), "png"))));
            body.put("stream", true);
            try (RawHttp http = RawHttp.post(server.port(), "/v1/chat/completions", body.toString())) {
                assertThat(http.readUntil("\"role\":\"assistant\"", 1)).isTrue();
                Poll.until("the encoder to start", Duration.ofSeconds(10), () -> server.encoderTrace(VL),
                        t -> t.stream().anyMatch(l -> l.path("call").asText().equals("inputs_set")));
                // the stream stays alive while the encoder runs
                assertThat(http.readUntil(": keep-alive", 2)).isTrue();
            }
            // a request behind it on the same worker ends after the cancelled one has
            TestServer.Reply next = server.postForReply("/v1/chat/completions", chat(VL, text("user", "[[say:ok]]")));
            assertThat(next.status()).as(next.body()).isEqualTo(200);
            assertThat(encoderRuns(server)).hasSize(1);
            List<JsonNode> runs = server.runs(VL);
            assertThat(runs).as("the language model never ran for the cancelled request").hasSize(1);
            assertThat(runs.getFirst().get("input_type").asInt()).isZero();
            Exposition metrics = Exposition.text(server.getForReply("/metrics").body());
            assertThat(metrics.get("rkllm_aborts_total", Map.of("model", VL, "cause", "client_gone")))
                    .isEqualTo(1.0);
        }
    }

    @Test
    void aVisionModelTakesTheTextModelsPlaceUnlessCoResidencyIsConfigured() throws Exception {
        String picture = chat(VL, imageMessage("What is this?", dataUrl(png(), "png")));
        try (TestServer server = server().model("text", Map.of()).set("models.max_loaded", "2").start()) {
            assertThat(server.postForReply("/v1/chat/completions", chat("text", text("user", "Hi."))).status())
                    .isEqualTo(200);
            assertThat(server.postForReply("/v1/chat/completions", picture).status()).isEqualTo(200);
            assertThat(loaded(server)).containsExactly(VL);
            assertThat(server.postForReply("/v1/chat/completions", chat("text", text("user", "Hi."))).status())
                    .isEqualTo(200);
            assertThat(loaded(server)).containsExactly("text");
        }
        try (TestServer server = TestServer.in(dir.resolve("co")).model(VL, LANGUAGE_MODEL).encoder(VL, ENCODER)
                .model("text", Map.of()).set("models.max_loaded", "2").set("vision.co_resident", "true").start()) {
            assertThat(server.postForReply("/v1/chat/completions", chat("text", text("user", "Hi."))).status())
                    .isEqualTo(200);
            assertThat(server.postForReply("/v1/chat/completions", picture).status()).isEqualTo(200);
            assertThat(loaded(server)).containsExactlyInAnyOrder("text", VL);
        }
    }

    /** The models loaded now: a switch removes the model that gives way before the new one loads. */
    private static List<String> loaded(TestServer server) throws Exception {
        return server.getForReply("/health").json().get("loaded_models").findValuesAsText("id");
    }

    @Test
    void modelsReportTheVisionCapability() throws Exception {
        try (TestServer server = server().model("text", Map.of()).start()) {
            JsonNode models = server.getForReply("/v1/models").json();
            for (JsonNode m : models.get("data")) {
                assertThat(m.at("/capabilities/vision").asBoolean()).as(m.get("id").asText())
                        .isEqualTo(m.get("id").asText().equals(VL));
            }
            JsonNode show = server.postForReply("/api/show", "{\"model\":\"" + VL + "\"}").json();
            assertThat(show.get("capabilities")).extracting(JsonNode::asText).contains("vision");
            JsonNode showText = server.postForReply("/api/show", "{\"model\":\"text\"}").json();
            assertThat(showText.get("capabilities")).extracting(JsonNode::asText).doesNotContain("vision");
        }
    }
}
