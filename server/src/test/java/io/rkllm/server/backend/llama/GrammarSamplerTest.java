package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.ModelParams;
import io.rkllm.llama.Sampler;
import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A grammar llama.cpp refuses for its own limits leaves the answer free, to be checked, rather than failing a request
 * that every retry would fail the same way.
 */
class GrammarSamplerTest {
    @TempDir
    static Path dir;
    static LlamaModel model;

    @BeforeAll
    static void load() throws Exception {
        Path file = dir.resolve("tiny.gguf");
        TinyLlama.write(file, TinyLlama.Options.chat());
        model = TestLlamaLibrary.runtime().load(ModelParams.of(file));
    }

    @AfterAll
    static void close() {
        model.close();
    }

    @Test
    void aGrammarLlamaCppTakesConstrainsTheSampler() {
        Optional<Sampler> sampler = GrammarSampler.of(model, LlamaSampling.of(TinyGgufModel.GREEDY, model, 512),
                new AnswerGrammar("root ::= \"a\"{2000}", Optional.empty()), "tiny");
        assertThat(sampler).isPresent();
        sampler.get().close();
    }

    @Test
    void oneItRefusesGivesNone() {
        // more than 2,000 repetitions of one item: llama.cpp's MAX_REPETITION_THRESHOLD
        assertThat(GrammarSampler.of(model, LlamaSampling.of(TinyGgufModel.GREEDY, model, 512),
                new AnswerGrammar("root ::= \"a\"{2001}", Optional.empty()), "tiny")).isEmpty();
    }
}
