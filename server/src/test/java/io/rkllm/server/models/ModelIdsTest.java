package io.rkllm.server.models;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ModelIdsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
            "Qwen3-1.7B-RK3588-w8a8 | qwen3-1.7b-rk3588-w8a8",
            "My Model (v2)          | my-model-v2",
            "a/b\\c                 | a-b-c",
            "Déjà Vu                | deja-vu",
            "Ünïcödé  Model         | unicode-model",
            "ﬁne-tune               | fine-tune",
            "通义-Qwen2.5            | qwen2.5",
            "--a--b--               | a-b",
            "a - b -- c             | a-b-c",
            ".hidden                | hidden",
            "Model:Q4               | model:q4",
            "under_score.dot        | under_score.dot",
            "'  spaced  '           | spaced",
            "'..'                   | ''",
            "通义千问                 | ''",
    })
    void sanitizes(String raw, String expected) {
        assertThat(ModelIds.sanitize(raw)).isEqualTo(expected);
    }

    @Test
    void sanitizedIdsContainOnlyUrlSafeCharacters() {
        String id = ModelIds.sanitize("Weird/Name?with#query&and%percent+plus=eq\"quote'\t\n€");
        assertThat(id).matches("[a-z0-9._:-]+").doesNotContain("/").doesNotContain("--");
    }

    @Test
    void capsTheLength() {
        String id = ModelIds.sanitize("a".repeat(300));
        assertThat(id).hasSize(ModelIds.MAX_LENGTH);
        assertThat(ModelIds.sanitize("a".repeat(127) + "-b")).hasSize(127).doesNotEndWith("-");
    }

    @Test
    void validity() {
        assertThat(ModelIds.isValid("qwen3-1.7b")).isTrue();
        assertThat(ModelIds.isValid("Qwen3")).isFalse();
        assertThat(ModelIds.isValid("a/b")).isFalse();
        assertThat(ModelIds.isValid("")).isFalse();
    }

    @Test
    void uniquifyKeepsFirstAndSuffixesTheRest() {
        assertThat(ModelIds.uniquify(List.of("a", "b", "a", "a"))).containsExactly("a", "b", "a-2", "a-3");
    }

    @Test
    void uniquifyNeverTakesAnIdPresentLaterInTheList() {
        assertThat(ModelIds.uniquify(List.of("a", "a", "a-2"))).containsExactly("a", "a-3", "a-2");
    }
}
