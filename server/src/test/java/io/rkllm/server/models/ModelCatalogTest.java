package io.rkllm.server.models;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ModelCatalogTest {

    private static ModelDescriptor model(String id, String... aliases) {
        return new ModelDescriptor(id, id, List.of(aliases), FamilyProfiles.GENERIC,
                new ModelDescriptor.Stored(Path.of("/models", id, "m.rkllm"), 1, Instant.EPOCH, OptionalInt.empty()),
                new ModelDescriptor.Context(4096, ModelDescriptor.SOURCE_DEFAULT),
                new ModelDescriptor.Chat(Capabilities.none(), SamplingDefaults.none(), SamplingDefaults.none(),
                        Optional.empty(), Optional.empty(), false, TemplateSource.NOTHING),
                Optional.empty(), Optional.empty(), new OpaqueFacts());
    }

    /** A model file its engine does not read. */
    private record OpaqueFacts() implements ModelFacts {
        @Override
        public String engine() {
            return "test";
        }

        @Override
        public String format() {
            return "test";
        }
    }

    private final ModelCatalog catalog = new ModelCatalog(List.of(
            model("qwen3-1.7b", "thinker"),
            model("gemma-3-1b"),
            model("llama-3.2-1b", "meta"),
            model("llama-3.2-3b"),
            model("phi-3-mini", "gemma-like")));

    private Optional<String> resolve(String name) {
        return catalog.resolve(name).map(ModelDescriptor::id);
    }

    @Test
    void exactIdFirstCaseInsensitive() {
        assertThat(resolve("qwen3-1.7b")).contains("qwen3-1.7b");
        assertThat(resolve("  Qwen3-1.7B ")).contains("qwen3-1.7b");
    }

    @Test
    void sidecarAliases() {
        assertThat(resolve("thinker")).contains("qwen3-1.7b");
        assertThat(resolve("META")).contains("llama-3.2-1b");
    }

    @Test
    void uniquePrefix() {
        assertThat(resolve("qwen")).contains("qwen3-1.7b");
        assertThat(resolve("llama-3.2-3")).contains("llama-3.2-3b");
        assertThat(resolve("phi")).contains("phi-3-mini");
        assertThat(resolve("th")).contains("qwen3-1.7b");
    }

    @Test
    void ambiguousPrefixFindsNothingButListsCandidates() {
        assertThat(resolve("llama")).isEmpty();
        assertThat(catalog.candidates("llama")).containsExactly("llama-3.2-1b", "llama-3.2-3b");
        assertThat(resolve("gemma")).isEmpty();
        assertThat(catalog.candidates("Gemma")).containsExactly("gemma-3-1b", "phi-3-mini");
    }

    @Test
    void unknownFindsNothing() {
        assertThat(resolve("mistral")).isEmpty();
        assertThat(catalog.candidates("mistral")).isEmpty();
        assertThat(resolve("")).isEmpty();
        assertThat(resolve(null)).isEmpty();
        assertThat(resolve("   ")).isEmpty();
    }

    @Test
    void emptyPrefixListsEveryId() {
        assertThat(catalog.candidates("")).hasSize(5);
        assertThat(catalog.candidates(null)).hasSize(5);
    }

    @Test
    void ollamaStyleLatestTagAndUnsanitisedNames() {
        assertThat(resolve("qwen3-1.7b:latest")).contains("qwen3-1.7b");
        assertThat(resolve("qwen:latest")).contains("qwen3-1.7b");
        assertThat(resolve("Qwen3 1.7B")).contains("qwen3-1.7b");
        assertThat(resolve("Llama 3.2 3B")).contains("llama-3.2-3b");
    }

    @Test
    void idsWinOverAliases() {
        ModelCatalog c = new ModelCatalog(List.of(model("alpha", "beta"), model("beta")));
        assertThat(c.resolve("beta").map(ModelDescriptor::id)).contains("beta");
    }

    @Test
    void anAliasClaimedTwiceIsNotAnAlias() {
        ModelCatalog c = new ModelCatalog(List.of(model("alpha", "fast"), model("beta", "fast")));
        assertThat(c.resolve("fast")).isEmpty();
        assertThat(c.candidates("fast")).isEmpty();
    }

    @Test
    void allIsSortedById() {
        assertThat(catalog.all()).extracting(ModelDescriptor::id).containsExactly("gemma-3-1b", "llama-3.2-1b",
                "llama-3.2-3b", "phi-3-mini", "qwen3-1.7b");
        assertThat(catalog.isEmpty()).isFalse();
        assertThat(new ModelCatalog(List.of()).isEmpty()).isTrue();
    }

    @Test
    void duplicateIdsAreRejected() {
        assertThatThrownBy(() -> new ModelCatalog(List.of(model("a"), model("a"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate model id a");
    }
}
