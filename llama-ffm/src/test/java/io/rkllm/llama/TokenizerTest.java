package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TinyLlama;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tokenizing and detokenizing through the tiny model's byte-level BPE vocabulary. */
class TokenizerTest extends WithChatModel {

    @Test
    void textSurvivesARoundTripIncludingNonAscii() {
        for (String text : List.of("Hello, hello! How are you today?", "The answer is 42.",
                "Grüße aus Köln — 東京 🚀", "  two  spaces\nand a newline\t")) {
            int[] tokens = model.tokenize(text, false, false);
            assertThat(tokens).isNotEmpty();
            assertThat(model.detokenize(tokens, false)).isEqualTo(text);
            ByteArrayOutputStream pieces = new ByteArrayOutputStream();
            for (int token : tokens) {
                pieces.writeBytes(model.tokenToPiece(token, false));
            }
            assertThat(pieces.toString(StandardCharsets.UTF_8)).isEqualTo(text);
        }
    }

    @Test
    void learntMergesMakeCommonWordsFewerTokensThanBytes() {
        String text = "the model and the assistant";
        assertThat(model.tokenize(text, false, false).length).isLessThan(text.length() / 2);
    }

    @Test
    void chatMlMarkersAreSpecialTokensOnlyWhenParsedAsSuch() {
        String text = TinyLlama.IM_START + "user\nHi" + TinyLlama.IM_END;
        int[] parsed = model.tokenize(text, false, true);
        int[] plain = model.tokenize(text, false, false);
        assertThat(parsed[0]).isEqualTo(model.vocabularySize() - 2);
        assertThat(parsed[parsed.length - 1]).isEqualTo(model.eos());
        assertThat(model.isControl(parsed[0])).isTrue();
        assertThat(plain.length).isGreaterThan(parsed.length);
        assertThat(model.detokenize(parsed, true)).isEqualTo(text);
        assertThat(model.detokenize(parsed, false)).isEqualTo("user\nHi");
        assertThat(new String(model.tokenToPiece(model.eos(), true), StandardCharsets.UTF_8)).isEqualTo(TinyLlama.IM_END);
    }

    @Test
    void specialTokensAreWhatTheFileNames() {
        int size = model.vocabularySize();
        assertThat(model.bos()).isEqualTo(size - 3);
        assertThat(model.eos()).isEqualTo(size - 1);
        assertThat(model.isEndOfGeneration(model.eos())).isTrue();
        assertThat(model.isEndOfGeneration(model.tokenize("a", false, false)[0])).isFalse();
        assertThat(model.addsBos()).isFalse();
        assertThat(model.tokenize("hi", true, false)).isEqualTo(model.tokenize("hi", false, false));
    }
}
