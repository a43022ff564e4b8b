package io.rkllm.server.models;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class ContextLengthHintsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "qwen3-1.7b-4k, 4096",
            "model_8k_w8a8, 8192",
            "Qwen3-4B-Instruct-16K-w8a8-rk3588, 16384",
            "Phi-3-mini-4k-instruct, 4096",
            "qwen3-0.6b-w8a8-ctx4096-rk3588, 4096",
            "model_ctx-8192, 8192",
            "model ctx 2048, 2048",
            "model-ctx8k, 8192",
            "model-4096ctx, 4096",
            "model-32k, 32768",
            "model-2k-then-8k, 8192",
    })
    void readsHints(String name, int expected) {
        assertThat(ContextLengthHints.fromName(name)).hasValue(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"qwen3-1.7b_w8a8_rk3588", "Llama-3.2-1B-Instruct", "rk3588", "w8a8", "model-4kb",
            "model4k", "gemma-3-270m", "model-4096", ""})
    void ignoresNamesWithoutHints(String name) {
        assertThat(ContextLengthHints.fromName(name)).isEmpty();
    }

    @Test
    void refusesImplausibleValuesButReportsThemRaw() {
        assertThat(ContextLengthHints.fromName("Phi-3-mini-128k-instruct")).isEmpty();
        assertThat(ContextLengthHints.rawFromName("Phi-3-mini-128k-instruct")).hasValue(131072);
        assertThat(ContextLengthHints.fromName("model-ctx100")).isEmpty();
    }
}
