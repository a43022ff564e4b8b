package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.ffm.rknn.CoreMask;
import io.rkllm.ffm.rknn.EmbeddingShape;
import io.rkllm.ffm.rknn.ImageEncoder;
import io.rkllm.ffm.rknn.RknnSim;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A vision model end to end on the simulated NPU: the encoder's output, handed to rkllm_run, is
 * what the language model receives (the two simulators' traces agree on the digest).
 */
class VisionPipelineTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Abi.class)
    void thePicturesEmbeddingsReachTheLanguageModel(Abi abi) {
        Path rknn = RknnSim.encoder(dir, "vision", Map.of("input_width", "32", "input_height", "32",
                "image_tokens", "8", "embed_dim", "16", "outputs", "4"));
        Path rkllm = Sim.model(dir, "vl", Map.of("image_embed_dim", "64", "reply_tokens", "3"));
        RkllmRuntime runtime = Sim.runtime(abi);
        ImageTags tags = new ImageTags("<|vision_start|>", "<|vision_end|>", "<|image_pad|>");
        byte[] cat = RknnSim.solid(32, 32, 200, 150, 100);
        byte[] dog = RknnSim.solid(32, 32, 50, 60, 70);
        try (ImageEncoder encoder = RknnSim.runtime().openEncoder(rknn, CoreMask.CORES_0_1_2);
             Model model = runtime.load(Sim.params(runtime, rkllm, 1024).withImageTags(tags))) {
            EmbeddingShape shape = encoder.shape();
            float[] first = encoder.encode(cat);
            float[] second = encoder.encode(dog);
            TokenEvent end = model.run(RunInput.user("<image><image>Which is the cat?", false),
                    new ImageInput(List.of(first, second), shape.imageTokens(), encoder.input().width(),
                            encoder.input().height(), Optional.empty()), new Sim.Collector(), new RunControl());
            assertThat(((TokenEvent.Finished) end).perf().prefillTokens()).isGreaterThan(2 * shape.imageTokens());
        }
        List<JsonNode> encodes = RknnSim.calls(rknn, "run");
        JsonNode images = Sim.calls(rkllm, "run").getFirst().get("images");
        assertThat(images.get("n_image_tokens").asInt()).isEqualTo(8);
        assertThat(images.get("embed_dim").asInt()).isEqualTo(64);
        assertThat(images.get("digests")).extracting(JsonNode::asText).containsExactly(
                encodes.get(0).get("embedding_digest").asText(), encodes.get(1).get("embedding_digest").asText());
        assertThat(encodes.get(0).get("input_digest").asText()).isEqualTo(RknnSim.digest(cat));
    }
}
