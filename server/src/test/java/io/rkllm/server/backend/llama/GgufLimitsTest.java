package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.models.ContextChoice;
import io.rkllm.server.models.ModelHeader;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The context a GGUF model is served with. Sharing one KV cache, the parallel conversations do not shrink it; only the
 * memory budget for the weights and that one cache does. With a cache each ({@code kv_cache}), the budget holds
 * {@code parallel + 1} of them; {@code auto} splits the cells one shared cache would have among them when each still
 * gets 8,192 tokens (or the model's own), and with a context set by hand takes a cache each when they fit.
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

    @Test
    void aCacheEachWhenTheyFitWithALongEnoughContextElseOneShared() {
        long file = 2 * GIB;
        // 16 GiB: one shared cache would hold all 40,960 tokens; split five ways, 8,192 each, the same memory
        GgufLimits roomy = new GgufLimits(4, 0, 16 * GIB, KvLayout.Mode.AUTO);
        ContextChoice each = roomy.contextFor(QWEN3.withLayout(roomy.layout()), file);
        assertThat(each.length()).isEqualTo(8_192);
        assertThat(each.source()).isEqualTo("gguf 40960, the cells of one cache of 40960 split into a KV cache each of"
                + " 5 conversations and the tasks");
        GgufFacts roomyFacts = QWEN3.withLayout(roomy.layout());
        assertThat(roomyFacts.perConversation(file, each.length())).isTrue();
        assertThat(roomyFacts.copyBytes(file, each.length())).as("five caches counted")
                .isEqualTo(file + 112L * 1024 * 8_192 * 5 + file / 10);
        assertThat(roomyFacts.kvCache(file, each.length())).contains("per_conversation");
        assertThat(roomyFacts.perConversation(file, 16_384)).as("a longer one set in model.yaml: more memory than"
                + " meant").isFalse();

        // 8 GiB: one cache of 26,112 split five ways is 5,120 each, under 8,192: one shared cache, as before
        GgufLimits tight = new GgufLimits(4, 0, 8 * GIB, KvLayout.Mode.AUTO);
        GgufFacts tightFacts = QWEN3.withLayout(tight.layout());
        ContextChoice shared = tight.contextFor(tightFacts, file);
        assertThat(shared.length()).isEqualTo(26_112);
        assertThat(tightFacts.perConversation(file, shared.length())).isFalse();
        assertThat(tightFacts.copyBytes(file, shared.length())).isEqualTo(file + 112L * 1024 * 26_112 + file / 10);

        // asked for: a cache each however short, or always one
        GgufLimits own = new GgufLimits(4, 0, 8 * GIB, KvLayout.Mode.PER_CONVERSATION);
        assertThat(own.contextFor(QWEN3.withLayout(own.layout()), file).length()).isEqualTo(4_864);
        GgufLimits one = new GgufLimits(4, 0, 64 * GIB, KvLayout.Mode.SHARED);
        assertThat(QWEN3.withLayout(one.layout()).perConversation(file, 40_960)).isFalse();
        // a context set by hand: a cache each when the five fit
        GgufLimits set = new GgufLimits(4, 4096, 8 * GIB, KvLayout.Mode.AUTO);
        assertThat(QWEN3.withLayout(set.layout()).perConversation(file, 4096)).isTrue();
        // the memory unknown: shared
        assertThat(QWEN3.withLayout(new GgufLimits(4, 4096, 0, KvLayout.Mode.AUTO).layout())
                .perConversation(file, 4096)).isFalse();
    }
}
