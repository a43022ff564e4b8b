package io.rkllm.server.http.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** A token's chunk is written from bytes encoded once around its text: the wire must be what a generator writes. */
class ChunkEncoderTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void contentChunkIsExactlyTheStreamedShape() {
        ChunkEncoder encoder = new ChunkEncoder("chatcmpl-1", 1700000000L, "qwen3:0.6b", false);
        String text = "a\"b\\c\n\t\u0001/é😀\u007f";
        assertThat(new String(encoder.content(text), UTF_8)).isEqualTo("data: {\"id\":\"chatcmpl-1\","
                + "\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"qwen3:0.6b\","
                + "\"system_fingerprint\":\"rkllm-server\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
                + "\"a\\\"b\\\\c\\n\\t\\u0001/é😀\u007f\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
        assertThat(new String(encoder.reasoning("think"), UTF_8)).contains(
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
            for (byte[] chunk : new byte[][] {encoder.content(text), encoder.reasoning(text)}) {
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
}
