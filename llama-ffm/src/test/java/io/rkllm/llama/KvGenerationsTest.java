package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The same KvCache over each KV generation: build 4916 has the llama_kv_self_ calls and still the deprecated
 * llama_kv_cache_ ones, so both are exercised here; the llama_memory_ ones by every other test, on the bundled
 * v0.5.0.
 */
class KvGenerationsTest {

    @Test
    void theDeprecatedKvCacheCallsWorkLikeTheNewerOnes() {
        // build 4916 (test class path only) has both the llama_kv_self_ calls and the deprecated llama_kv_cache_ ones
        LibraryInfo info = Build4916.runtime().info();
        assertThat(info.identity().kvApi()).isEqualTo(KvApi.KV_SELF);
        LlamaRuntime old = LlamaRuntime.open(info.library(), Optional.empty(), Optional.of(KvApi.KV_CACHE));
        assertThat(old.info().identity().kvApi()).isEqualTo(KvApi.KV_CACHE);
        try (LlamaModel model = old.load(ModelParams.of(TestLlama.chatModel()));
             LlamaContext context = model.newContext(ContextParams.generation(512, 2, 1));
             Batch batch = new Batch(512, 1)) {
            assertThat(context.kv().api()).isEqualTo(KvApi.KV_CACHE);
            int[] tokens = model.tokenize("The quick brown fox jumps over the lazy dog.", false, false);
            Greedy.prefill(context, batch, 0, tokens, 0);
            assertThat(context.kv().maxPosition(0)).isEqualTo(tokens.length - 1);
            assertThat(context.kv().remove(0, 4, -1)).isTrue();
            assertThat(context.kv().maxPosition(0)).isEqualTo(3);
            context.kv().copy(0, 1, 0, -1);
            assertThat(context.kv().maxPosition(1)).isEqualTo(3);
            assertThat(context.kv().canShift()).isTrue();
            context.kv().shift(1, 0, -1, 2);
            assertThat(context.kv().maxPosition(1)).isEqualTo(5);
            context.kv().clear();
            assertThat(context.kv().maxPosition(0)).isEqualTo(-1);
        }
    }

    @Test
    void aGenerationTheLibraryLacksIsRefused() {
        LibraryInfo info = TestLlama.runtime().info();
        KvApi absent = info.identity().kvApi() == KvApi.MEMORY ? KvApi.KV_CACHE : KvApi.MEMORY;
        assertThatThrownBy(() -> LlamaRuntime.open(info.library(), Optional.empty(), Optional.of(absent)))
                .isInstanceOf(LlamaException.class).hasMessageContaining("does not export");
    }

    @Test
    void aForcedLayoutGenerationThatDoesNotFitIsRefused() {
        LibraryInfo info = TestLlama.runtime().info();
        LayoutGeneration wrong = info.identity().generation() == LayoutGeneration.B4916
                ? LayoutGeneration.V0_5_0 : LayoutGeneration.B4916;
        assertThatThrownBy(() -> LlamaRuntime.open(info.library(), Optional.of(wrong)))
                .isInstanceOf(LlamaException.class).hasMessageContaining("not a llama.cpp build whose structs");
    }
}
