package io.rkllm.server.http.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.pipeline.output.TokenProbability;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A token's chunk is written from bytes encoded once around its text: the wire must be what a generator writes. */
class ChunkEncoderTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void contentChunkIsExactlyTheStreamedShape() {
        ChunkEncoder encoder = new ChunkEncoder("chatcmpl-1", 1700000000L, "qwen3:0.6b", false);
        String text = "a\"b\\c\n\t\u0001/é😀\u007f";
        assertThat(new String(encoder.content(text, List.of()), UTF_8)).isEqualTo("data: {\"id\":\"chatcmpl-1\","
                + "\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"qwen3:0.6b\","
                + "\"system_fingerprint\":\"rkllm-server\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
                + "\"a\\\"b\\\\c\\n\\t\\u0001/é😀\u007f\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
        assertThat(new String(encoder.reasoning("think", List.of()), UTF_8)).contains(
                "\"delta\":{\"reasoning_content\":\"think\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    }

    @Test
    void everyCharacterComesBackAsSent() throws Exception {
        ChunkEncoder encoder = new ChunkEncoder("id", 1L, "m\"odel", false);
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x300; c++) {
            all.append(c);
        }
        all.append("\u2028\u2029\uFFFD😀");
        for (int i = 0; i < 3; i++) { // the frame is made once and used again
            String text = all.substring(i * 7);
            for (byte[] chunk : new byte[][] {encoder.content(text, List.of()), encoder.reasoning(text, List.of())}) {
                String wire = new String(chunk, UTF_8);
                assertThat(wire).startsWith("data: ").endsWith("}\n\n");
                assertThat(wire.substring(0, wire.length() - 2)).doesNotContain("\n", "\r");
                JsonNode json = MAPPER.readTree(wire.substring(6));
                JsonNode delta = json.at("/choices/0/delta");
                assertThat(delta.has("content") ? delta.get("content").asText()
                        : delta.get("reasoning_content").asText()).isEqualTo(text);
                assertThat(json.get("model").asText()).isEqualTo("m\"odel");
            }
        }
    }

    @Test
    void aChunkWithLogprobsCarriesThemInOpenAisShape() {
        ChunkEncoder encoder = new ChunkEncoder("chatcmpl-1", 1700000000L, "m", false);
        TokenProbability hi = token("Hi", -0.25, List.of(token("Hi", -0.25, List.of()), token("Hey", -1.5, List.of())));
        assertThat(new String(encoder.content("Hi", List.of(hi)), UTF_8)).endsWith("\"choices\":[{\"index\":0,"
                + "\"delta\":{\"content\":\"Hi\"},\"logprobs\":{\"content\":[{\"token\":\"Hi\",\"logprob\":-0.25,"
                + "\"bytes\":[72,105],\"top_logprobs\":[{\"token\":\"Hi\",\"logprob\":-0.25,\"bytes\":[72,105]},"
                + "{\"token\":\"Hey\",\"logprob\":-1.5,\"bytes\":[72,101,121]}]}],\"refusal\":null},"
                + "\"finish_reason\":null}]}\n\n");
        // the next chunk without tokens of its own says null, as before
        assertThat(new String(encoder.content("!", List.of()), UTF_8)).contains("\"logprobs\":null");
    }

    @Test
    void legacyChunksCountTheTextOffsetOnFromChunkToChunk() throws Exception {
        ChunkEncoder encoder = new ChunkEncoder("cmpl-1", 1L, "m", true);
        JsonNode first = MAPPER.readTree(new String(encoder.text("Hello", null,
                List.of(token("Hel", -0.5, List.of(token("Hel", -0.5, List.of()))), token("lo", -0.1, List.of()))),
                UTF_8).substring(6));
        assertThat(first.at("/choices/0/logprobs").toString()).isEqualTo("{\"tokens\":[\"Hel\",\"lo\"],"
                + "\"token_logprobs\":[-0.5,-0.1],\"top_logprobs\":[{\"Hel\":-0.5},{}],\"text_offset\":[0,3]}");
        JsonNode second = MAPPER.readTree(new String(encoder.text(" world", null,
                List.of(token(" world", Double.NEGATIVE_INFINITY, List.of()))), UTF_8).substring(6));
        assertThat(second.at("/choices/0/logprobs/text_offset").toString()).isEqualTo("[5]");
        // JSON has no -Infinity: a probability too small for a logarithm is written as OpenAI writes it
        assertThat(second.at("/choices/0/logprobs/token_logprobs/0").asDouble()).isEqualTo(-9999.0);
        // a character split over tokens: each piece as OpenAI writes bytes, the offsets in the text's characters
        JsonNode split = MAPPER.readTree(new String(encoder.text("€a", null, List.of(
                bytes(new byte[] {(byte) 0xE2}), bytes(new byte[] {(byte) 0x82, (byte) 0xAC}), token("a", -0.2,
                        List.of()))), UTF_8).substring(6)).at("/choices/0/logprobs");
        assertThat(split.get("tokens").toString()).isEqualTo("[\"bytes:\\\\xe2\",\"bytes:\\\\x82\\\\xac\",\"a\"]");
        assertThat(split.get("text_offset").toString()).isEqualTo("[11,11,12]");
    }

    private static TokenProbability bytes(byte[] piece) {
        return new TokenProbability("\uFFFD", piece, -1.0, List.of());
    }

    private static TokenProbability token(String text, double logprob, List<TokenProbability> top) {
        return new TokenProbability(text, text.getBytes(UTF_8), logprob, top);
    }
}
