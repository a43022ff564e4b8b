package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.models.ContextChoice;
import io.rkllm.server.models.ModelHeader;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The context a GGUF model is served with: the parallel conversations share one KV cache, so their number does not
 * shrink it; only the memory budget for the weights and that one cache does.
 */
class GgufLimitsTest {
    static final long GIB = 1L << 30;
    /** A Qwen3-1.7B-like model: 40k training context, 112 KiB of F16 KV per token. */
    static final GgufFacts QWEN3 = new GgufFacts(new ModelHeader("qwen3", Optional.empty(), 1_700_000_000L, "Q8_0",
            40_960, Optional.empty(), Optional.empty(), 2048), 112 * 1024, 4, 0);

    @Test
    void moreConversationsAtOnceDoNotShortenTheContext() {
        long file = 2 * GIB;
        ContextChoice one = new GgufLimits(1, 0, 8 * GIB).contextFor(QWEN3, file);
        ContextChoice four = new GgufLimits(4, 0, 8 * GIB).contextFor(QWEN3, file);
        assertThat(four).isEqualTo(one);
        // 60 % of 8 GiB less the 2 GiB file is 2.8 GiB; over 112 KiB a token, 26,214 tokens: 26,112 in whole
        // 256-cell steps (it was a quarter of that with four conversations, each with a cache of its own)
        assertThat(four.length()).isEqualTo(26_112).isLessThan(QWEN3.modelHeader().trainingContext());
        assertThat(four.source()).contains("capped by memory");
        assertThat(new GgufLimits(4, 0, 32 * GIB).contextFor(QWEN3, file).length()).as("room for all of it")
                .isEqualTo(40_960);
    }
}
