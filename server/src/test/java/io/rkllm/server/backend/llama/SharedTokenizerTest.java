package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.server.engine.contract.ModelTokenizer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A GGUF model's tokenizer lent to other threads: the model's own, and refused once the model is closed. */
class SharedTokenizerTest {
    @TempDir
    Path dir;

    @Test
    void itIsTheModelsOwnUntilTheModelCloses() throws Exception {
        GgufModel model = TinyGgufModel.load(dir, 256, 1);
        ModelTokenizer tokenizer = model.tokenizer().orElseThrow();
        int[] tokens = tokenizer.tokenize("Hé ok", false, true);
        assertThat(tokens).isEqualTo(model.loop().model().tokenize("Hé ok", false, true));
        assertThat(new String(tokenizer.piece(tokens[0]), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("H");
        assertThat(tokenizer.vocabularySize()).isEqualTo(model.loop().model().vocabularySize());
        assertThatThrownBy(() -> tokenizer.piece(tokenizer.vocabularySize()))
                .isInstanceOf(IllegalArgumentException.class);
        model.close();
        // the model's memory is freed: no native call may reach it
        assertThatThrownBy(() -> tokenizer.tokenize("Hé ok", false, true)).isInstanceOf(ModelTokenizer.Unloaded.class);
        assertThatThrownBy(() -> tokenizer.piece(72)).isInstanceOf(ModelTokenizer.Unloaded.class);
    }
}
