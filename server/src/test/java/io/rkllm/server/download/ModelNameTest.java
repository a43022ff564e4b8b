package io.rkllm.server.download;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Model names as Ollama, llama.cpp and the Hub's own addresses write them. */
class ModelNameTest {
    private static ModelName parse(String s) throws PullException {
        return ModelName.parse(s);
    }

    @Test
    void everyFormOfAName() throws Exception {
        assertThat(parse("hf.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M")).isEqualTo(new ModelName(
                "bartowski/Qwen2.5-0.5B-Instruct-GGUF", Optional.of("Q4_K_M"), Optional.empty(), "main"));
        assertThat(parse("bartowski/Qwen2.5-0.5B-Instruct-GGUF")).isEqualTo(new ModelName(
                "bartowski/Qwen2.5-0.5B-Instruct-GGUF", Optional.empty(), Optional.empty(), "main"));
        assertThat(parse("huggingface.co/a/b:latest").tag()).isEmpty();
        assertThat(parse("Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q8_0.gguf")).isEqualTo(new ModelName(
                "Qwen/Qwen2.5-0.5B-Instruct-GGUF", Optional.empty(), Optional.of("qwen2.5-0.5b-instruct-q8_0.gguf"),
                "main"));
        assertThat(parse("https://huggingface.co/unsloth/Qwen3-30B-A3B-GGUF/blob/v2/Q4_K_M/x-00001-of-00002.gguf"))
                .isEqualTo(new ModelName("unsloth/Qwen3-30B-A3B-GGUF", Optional.empty(),
                        Optional.of("Q4_K_M/x-00001-of-00002.gguf"), "v2"));
        assertThat(parse("  HF.CO/a/b:iq4_xs ").display()).isEqualTo("a/b:iq4_xs");
    }

    @Test
    void namesThatAreNotModelsSayWhy() {
        assertThat(message("")).isEqualTo("no model named: name a model as OWNER/REPO, OWNER/REPO:QUANT or"
                + " OWNER/REPO/FILE (also hf.co/OWNER/REPO:QUANT, as Ollama writes it), or by its name in Ollama's"
                + " library, MODEL[:TAG] (qwen3:4b)");
        assertThat(message("qwen3")).startsWith("'qwen3' names no repository: ");
        assertThat(message("a/b:Q4/x.gguf")).isEqualTo("'a/b:Q4/x.gguf' has both a :tag and a file: name one of them");
        assertThat(message("a/b:Q4 K")).startsWith("':Q4 K' is not a quantisation tag");
        assertThat(message("a--b/c")).startsWith("'a--b' in 'a--b/c' is not a Hub owner name");
        assertThat(message("C:\\models\\x.gguf")).startsWith("'C:\\models\\x.gguf' is a path on this machine");
        assertThat(message("a/b\\c")).startsWith("'a/b\\c' has a backslash");
        assertThat(message("a/b/x\u0000.gguf")).startsWith("the model name has control characters");
        assertThat(message("a/b/resolve/../x.gguf")).isEqualTo("'..' is not a revision of the Hub");
    }

    private static String message(String name) {
        PullException e = catchThrowableOfType(PullException.class, () -> ModelName.parse(name));
        assertThat(e.kind()).isEqualTo(PullException.Kind.INVALID);
        return e.getMessage();
    }
}
