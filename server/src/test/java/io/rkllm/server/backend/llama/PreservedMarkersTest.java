package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.pipeline.output.dialect.Dialects;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dialect's markers that the vocabulary has as control tokens reach the pipeline as text, as llama-server's
 * preserved tokens, while the end of generation never does: a tiny model whose vocabulary has Mistral's markers
 * ({@code [TOOL_CALLS]}, {@code [ARGS]}, {@code [THINK]}) and gpt-oss's as control tokens, as their GGUFs have them.
 * llama.cpp itself writes gpt-oss's harmony markers of any vocabulary as text (it makes them user-defined, and
 * {@code <|end|>} no end of generation beside {@code <|return|>} and {@code <|call|>}); Mistral's it writes only when
 * asked.
 */
class PreservedMarkersTest {
    private static final List<String> CONTROLS = List.of("[TOOL_CALLS]", "[ARGS]", "[THINK]", "[/THINK]",
            "<|channel|>", "<|message|>", "<|end|>", "<|start|>", "<|constrain|>", "<|return|>", "<|call|>");

    @TempDir
    static Path dir;
    static GgufModel model;

    @BeforeAll
    static void load() throws Exception {
        model = TinyGgufModel.load(dir, 512, 1, TinyLlama.Options.chat().withControls(CONTROLS));
    }

    @AfterAll
    static void close() {
        model.close();
    }

    private static LlamaModel vocabulary() {
        return model.loop().model();
    }

    private static int token(String text) {
        int[] ids = vocabulary().tokenize(text, false, true);
        assertThat(ids).as(text).hasSize(1);
        return ids[0];
    }

    /** What the decode loop writes of a sampled token: its text when preserved, else what llama.cpp prints. */
    private static String written(int token, Set<Integer> preserved) {
        return new String(vocabulary().tokenToPiece(token, preserved.contains(token)), StandardCharsets.UTF_8);
    }

    private static Set<Integer> preserved(String dialect) {
        return new MarkerTokens(vocabulary()).tokens(Dialects.named(dialect).orElseThrow().syntax().markers());
    }

    @Test
    void theDialectsControlTokensAreWrittenAsText() {
        Set<Integer> mistral = preserved("mistral");
        for (String marker : List.of("[TOOL_CALLS]", "[ARGS]", "[THINK]", "[/THINK]")) {
            assertThat(mistral).contains(token(marker));
            assertThat(written(token(marker), mistral)).isEqualTo(marker);
        }
    }

    @Test
    void withoutItsDialectAControlTokenWritesNothing() {
        assertThat(written(token("[TOOL_CALLS]"), Set.of())).isEmpty();
        assertThat(written(token("[TOOL_CALLS]"), preserved("hermes"))).isEmpty();
    }

    @Test
    void harmonysMarkersAreTextWhateverIsPreserved() {
        for (String marker : List.of("<|channel|>", "<|message|>", "<|end|>", "<|start|>", "<|constrain|>")) {
            assertThat(written(token(marker), Set.of())).isEqualTo(marker);
            assertThat(written(token(marker), preserved("gpt-oss"))).isEqualTo(marker);
        }
    }

    @Test
    void theEndOfGenerationIsNeverPreserved() {
        MarkerTokens tokens = new MarkerTokens(vocabulary());
        assertThat(vocabulary().isEndOfGeneration(token("<|return|>"))).isTrue();
        assertThat(tokens.tokens(List.of("<|return|>", "<|call|>", "<|im_end|>"))).isEmpty();
        // text that is not one token of the vocabulary is no marker token either
        assertThat(tokens.tokens(List.of("analysis", "[ARGS]x"))).isEmpty();
    }
}
