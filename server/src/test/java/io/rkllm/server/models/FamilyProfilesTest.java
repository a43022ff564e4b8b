package io.rkllm.server.models;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FamilyProfilesTest {

    private final FamilyProfiles profiles = FamilyProfiles.builtIn();

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "Qwen3-1.7B-RK3588-w8a8, qwen3",
            "Qwen3-Embedding-0.6B-rk3588-w8a8, qwen3-embedding",
            "qwen3_embedding_0.6b.rkllm, qwen3-embedding",
            "qwen3-1.7b_w8a8_rk3588.rkllm, qwen3",
            "DeepSeek-R1-Distill-Qwen-1.5B, deepseek-r1",
            "deepseek-r1-distill-llama-8b, deepseek-r1",
            "Qwen3-4B-Instruct-2507, qwen3-instruct",
            "Qwen3-4B-2507-Instruct, qwen3-instruct",
            "Qwen3-4B-Instruct-w8a8, qwen3",
            "Qwen3-4B-Thinking-2507, qwen3-thinking",
            "Qwen2.5-3B-Instruct, qwen2.5",
            "qwen2_5-coder-1.5b, qwen2.5",
            "Qwen2-1.5B-Instruct, qwen",
            "Qwen1.5-0.5B-Chat, qwen",
            "Llama-3.2-1B-Instruct, llama",
            "TinyLlama-1.1B-Chat, llama",
            "gemma-3-1b-it, gemma",
            "Phi-3-mini-4k-instruct, phi",
            "phi4-mini, phi",
            "MiniCPM4-0.5B, minicpm",
            "internlm2_5-1_8b-chat, internlm",
            "chatglm3-6b, chatglm",
            "sophia-3, generic",
            "mystery-model, generic",
    })
    void recognisesFamiliesFromNames(String name, String profile) {
        assertThat(profiles.detect(name).name()).isEqualTo(profile);
    }

    @Test
    void looksAtFolderAndFileName() {
        assertThat(profiles.detect("my-favourite", "qwen3-1.7b_w8a8.rkllm").name()).isEqualTo("qwen3");
        assertThat(profiles.detect("", "gemma-3-1b.rkllm").family()).isEqualTo("gemma");
    }

    @Test
    void qwen3MatchesTheReferenceServerProfile() {
        FamilyProfile qwen3 = profiles.detect("Qwen3-1.7B");
        assertThat(qwen3.capabilities()).isEqualTo(new Capabilities(true, true));
        assertThat(qwen3.thinkingStartsOpen()).isFalse();
        SamplingDefaults s = qwen3.sampling();
        assertThat(s.topK()).hasValue(20);
        assertThat(s.topP()).hasValue(0.8);
        assertThat(s.temperature()).hasValue(0.7);
        assertThat(s.repeatPenalty()).hasValue(1.1);
        assertThat(s.presencePenalty()).hasValue(1.5);
        SamplingDefaults thinking = s.overriddenBy(qwen3.thinkingSampling());
        assertThat(thinking.temperature()).hasValue(0.6);
        assertThat(thinking.topP()).hasValue(0.95);
        assertThat(thinking.topK()).hasValue(20);
        assertThat(thinking.presencePenalty()).hasValue(0.0);
    }

    @Test
    void reasoningDistillsThinkAndStartOpen() {
        FamilyProfile r1 = profiles.detect("DeepSeek-R1-Distill-Qwen-1.5B");
        assertThat(r1.capabilities().thinking()).isTrue();
        assertThat(r1.thinkingStartsOpen()).isTrue();
        assertThat(profiles.detect("Qwen3-4B-Thinking-2507").thinkingStartsOpen()).isTrue();
        assertThat(profiles.detect("Qwen3-4B-Instruct-2507").capabilities()).isEqualTo(new Capabilities(false, true));
        assertThat(profiles.detect("Qwen2.5-3B").capabilities()).isEqualTo(new Capabilities(false, true));
        assertThat(profiles.detect("Llama-3.2-1B").capabilities()).isEqualTo(Capabilities.none());
    }

    @Test
    void everyChatProfileSetsAllSixSamplingValues() {
        List<FamilyProfile> all = new ArrayList<>(profiles.all());
        all.add(profiles.generic());
        all.removeIf(p -> p.embedding().isPresent());
        for (FamilyProfile p : all) {
            SamplingDefaults s = p.sampling();
            assertThat(List.of(s.temperature().isPresent(), s.topP().isPresent(), s.topK().isPresent(),
                    s.repeatPenalty().isPresent(), s.frequencyPenalty().isPresent(), s.presencePenalty().isPresent()))
                    .as(p.name()).containsOnly(true);
            assertThat(s.maxTokens()).as(p.name()).isEmpty();
        }
    }

    @Test
    void qwen3EmbeddingFollowsTheReferenceRecipe() {
        EmbeddingSettings e = profiles.detect("Qwen3-Embedding-0.6B").embedding().orElseThrow();
        assertThat(e.pooling()).isEqualTo(EmbeddingSettings.Pooling.LAST);
        assertThat(e.normalize()).isTrue();
        assertThat(e.framing()).isEqualTo(EmbeddingSettings.Framing.RAW);
        assertThat(e.endOfText()).isEqualTo("<|endoftext|>");
        assertThat(e.queryPrefix()).startsWith("Instruct: ").endsWith("\nQuery: ");
        assertThat(e.documentPrefix()).isEmpty();
        assertThat(e.matryoshka()).isTrue();
        assertThat(e.inputLimit(4096)).isEqualTo(4096);
        assertThat(profiles.detect("Qwen3-1.7B").embedding()).isEmpty();
        assertThat(profiles.byName("qwen3-embedding")).get().extracting(FamilyProfile::name)
                .isEqualTo("qwen3-embedding");
    }

    @Test
    void findsProfilesByNameOrFamily() {
        assertThat(profiles.byName("qwen3")).get().extracting(FamilyProfile::name).isEqualTo("qwen3");
        assertThat(profiles.byName("QWEN3-Instruct")).get().extracting(FamilyProfile::name)
                .isEqualTo("qwen3-instruct");
        assertThat(profiles.byName("generic")).contains(profiles.generic());
        assertThat(profiles.byName("nope")).isEmpty();
    }
}
