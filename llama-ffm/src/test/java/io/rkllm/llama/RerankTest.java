package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.rkllm.llama.gguf.TinyBert;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The tiny BERT reranker through the real library: rank pooling, one score per (query, document) pair. */
class RerankTest {
    private static final String QUERY = "How many big cores does the board have?";
    private static final List<String> DOCUMENTS = List.of("The board has four big cores and four little cores.",
            "The quick brown fox jumps over the lazy dog.", "Hello, hello! How are you today?",
            "The answer is 42.");
    private static LlamaModel model;

    @BeforeAll
    static void load() {
        model = TestLlama.runtime().load(ModelParams.of(TestLlama.reranker()));
    }

    @AfterAll
    static void close() {
        model.close();
    }

    /** Each pair in its own sequence of one decode; the score of each. */
    private static float[] scores(String query, List<String> documents) {
        try (LlamaContext context = model.newContext(ContextParams.embedding(512, documents.size(), 1,
                Pooling.UNSPECIFIED)); Batch batch = new Batch(512, 1)) {
            assertThat(context.pooling()).isEqualTo(Pooling.RANK);
            for (int s = 0; s < documents.size(); s++) {
                int[] tokens = model.rerankPair(query, documents.get(s));
                for (int i = 0; i < tokens.length; i++) {
                    batch.add(tokens[i], i, s, true);
                }
            }
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            float[] out = new float[documents.size()];
            for (int s = 0; s < documents.size(); s++) {
                float[] pooled = context.sequenceEmbedding(s);
                assertThat(pooled).hasSize(1);
                out[s] = pooled[0];
            }
            return out;
        }
    }

    @Test
    void theModelIsABertEncoderThatAsksForRankPooling() {
        assertThat(model.metadata("general.architecture")).contains("bert");
        assertThat(model.metadata("bert.pooling_type")).contains("4");
        assertThat(model.info().embeddingLength()).isEqualTo(64);
        assertThat(model.info().layers()).isEqualTo(2);
        assertThat(TestLlama.reranker().toFile().length()).isLessThan(2_000_000);
    }

    @Test
    void aPairIsFramedAsLlamaServerFramesIt() {
        int[] query = model.tokenize("the board", false, false);
        int[] document = model.tokenize("four cores", false, false);
        int[] expected = IntStream.concat(IntStream.concat(IntStream.of(model.bos()), IntStream.of(query)),
                IntStream.concat(IntStream.of(model.eos(), model.sep()),
                        IntStream.concat(IntStream.of(document), IntStream.of(model.eos())))).toArray();
        assertThat(model.rerankPair("the board", "four cores")).containsExactly(expected);
        assertThat(model.detokenize(new int[] {model.bos(), model.eos(), model.sep()}, true))
                .isEqualTo(TinyBert.BOS + TinyBert.EOS + TinyBert.EOS);
    }

    @Test
    void eachDocumentGetsItsOwnScoreTheSameEveryTime() {
        float[] first = scores(QUERY, DOCUMENTS);
        Set<Float> distinct = new HashSet<>();
        for (float score : first) {
            assertThat(score).isFinite();
            distinct.add(score);
        }
        assertThat(distinct).hasSize(DOCUMENTS.size());
        assertThat(scores(QUERY, DOCUMENTS)).containsExactly(first);
        // a pair scored alone scores as it does beside others (the sequences do not see each other); to float
        // rounding only, as ggml's CPU kernels sum in another order for another batch shape (v0.5.0: 2e-4)
        assertThat(scores(QUERY, List.of(DOCUMENTS.get(2)))[0]).isCloseTo(first[2], within(1e-3f));
    }

    @Test
    void theQueryChangesTheScores() {
        float[] one = scores(QUERY, DOCUMENTS);
        float[] other = scores("The quick brown fox", DOCUMENTS);
        assertThat(other).isNotEqualTo(one);
    }

    @Test
    void theSameSeedWritesTheSameFile() throws Exception {
        Path again = TestLlama.tempDir().resolve("again.gguf");
        TinyBert.write(again, TinyBert.Options.reranker());
        assertThat(java.nio.file.Files.mismatch(again, TestLlama.reranker())).isEqualTo(-1);
    }

    @Test
    void aHeadWithoutItsBiasIsRefusedBeforeTheLibraryAbortsOnIt() throws Exception {
        Path broken = TestLlama.tempDir().resolve("no-cls-bias.gguf");
        TinyBert.write(broken, TinyBert.Options.reranker().withoutTensor("cls.bias"));
        try (LlamaModel headless = TestLlama.runtime().load(ModelParams.of(broken))) {
            assertThatThrownBy(() -> headless.newContext(ContextParams.embedding(512, 1, 1, Pooling.RANK)))
                    .isInstanceOf(LlamaException.class).hasMessageContaining("cls.bias");
        }
    }

    @Test
    void aContextLongerThanTheLearnedPositionsIsRefused() {
        // a token past the 512 rows of position_embd would fail ggml's bounds check and end the process
        assertThatThrownBy(() -> model.newContext(ContextParams.embedding(1024, 1, 1, Pooling.RANK)))
                .isInstanceOf(LlamaException.class).hasMessageContaining("learned positions for 512 tokens");
        try (LlamaContext whole = model.newContext(new ContextParams(0, 512, 512, 1, 1, 1, true, Pooling.RANK,
                true))) {
            assertThat(whole.contextLength()).isEqualTo(512);
        }
    }

    @Test
    void aLongDocumentIsCutToFitButTheQueryIsNot() {
        String passage = "The board has four big cores. ".repeat(60);
        int[] whole = model.rerankPair("cores", passage);
        assertThat(whole.length).isGreaterThan(100);
        int[] cut = model.rerankPair("cores", passage, 100);
        assertThat(cut).hasSize(100);
        assertThat(java.util.Arrays.copyOf(cut, 99)).containsExactly(java.util.Arrays.copyOf(whole, 99));
        assertThat(cut[99]).isEqualTo(model.eos());
        assertThat(model.rerankPair("cores", "four", 100)).containsExactly(model.rerankPair("cores", "four"));
        // the query is the caller's to refuse: the pair stays longer than asked
        assertThat(model.rerankPair(passage, "cores", 100).length).isGreaterThan(100);
    }
}
