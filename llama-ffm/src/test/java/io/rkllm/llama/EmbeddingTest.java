package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Embeddings of the tiny embedding model: per sequence with mean pooling, several texts in one batch. */
class EmbeddingTest {
    private static final String[] TEXTS = {"The board has four big cores.", "Hello, hello! How are you today?"};
    private static LlamaModel model;

    @BeforeAll
    static void load() {
        model = TestLlama.runtime().load(ModelParams.of(TestLlama.embeddingModel()));
    }

    @AfterAll
    static void close() {
        model.close();
    }

    private static float[][] embed(Pooling pooling, String... texts) {
        try (LlamaContext context = model.newContext(ContextParams.embedding(512, texts.length, 1, pooling));
             Batch batch = new Batch(512, 1)) {
            for (int s = 0; s < texts.length; s++) {
                int[] tokens = model.tokenize(texts[s], true, false);
                for (int i = 0; i < tokens.length; i++) {
                    batch.add(tokens[i], i, s, true);
                }
            }
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            assertThat(context.pooling()).isEqualTo(pooling);
            float[][] out = new float[texts.length][];
            for (int s = 0; s < texts.length; s++) {
                out[s] = context.sequenceEmbedding(s);
            }
            return out;
        }
    }

    @Test
    void eachSequenceGetsOneVectorOfTheModelsWidth() {
        float[][] vectors = embed(Pooling.LAST, TEXTS);
        assertThat(vectors[0]).hasSize(model.info().embeddingLength());
        assertThat(vectors[1]).hasSize(64);
        assertThat(vectors[0]).isNotEqualTo(vectors[1]);
        assertThat(embed(Pooling.LAST, TEXTS[1])[0]).containsExactly(vectors[1], within(1e-4f));
    }

    /** Each token's embedding, from a context without pooling. */
    private static float[][] tokenEmbeddings(String text) {
        int[] tokens = model.tokenize(text, true, false);
        try (LlamaContext context = model.newContext(ContextParams.embedding(512, 1, 1, Pooling.NONE));
             Batch batch = new Batch(512, 1)) {
            for (int i = 0; i < tokens.length; i++) {
                batch.add(tokens[i], i, 0, true);
            }
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            float[][] out = new float[tokens.length][];
            for (int i = 0; i < tokens.length; i++) {
                out[i] = context.embedding(i);
            }
            return out;
        }
    }

    @Test
    void lastPoolingIsTheLastTokensEmbedding() {
        float[][] tokens = tokenEmbeddings(TEXTS[0]);
        assertThat(embed(Pooling.LAST, TEXTS[0])[0]).containsExactly(tokens[tokens.length - 1], within(1e-4f));
    }

    @Test
    void meanPoolingIsTheMeanOfTheTokensEmbeddingsWhereTheBuildCanDoIt() {
        if (TestLlama.runtime().info().identity().generation() == LayoutGeneration.B4916) {
            // b4916 aborts the process on this graph: the binding refuses it instead
            assertThatThrownBy(() -> embed(Pooling.MEAN, TEXTS[0])).isInstanceOf(LlamaException.class)
                    .hasMessageContaining("cannot mean-pool");
            return;
        }
        float[] pooled = embed(Pooling.MEAN, TEXTS[0])[0];
        float[][] tokens = tokenEmbeddings(TEXTS[0]);
        float[] mean = new float[pooled.length];
        for (float[] e : tokens) {
            for (int d = 0; d < mean.length; d++) {
                mean[d] += e[d] / tokens.length;
            }
        }
        assertThat(pooled).containsExactly(mean, within(1e-4f));
    }

    @Test
    void rankPoolingWithoutAClassificationHeadIsRefused() {
        assertThatThrownBy(() -> model.newContext(ContextParams.embedding(512, 1, 1, Pooling.RANK)))
                .isInstanceOf(LlamaException.class).hasMessageContaining("cls.weight");
    }

    @Test
    void theModelsOwnPoolingIsReadWhereTheBuildReadsIt() {
        try (LlamaContext context = model.newContext(ContextParams.embedding(512, 1, 1, Pooling.UNSPECIFIED))) {
            // llama.cpp reads <arch>.pooling_type for every architecture from mid-2025 on; b4916 for BERT-like ones only
            Pooling expected = TestLlama.runtime().info().identity().generation() == LayoutGeneration.B4916
                    ? Pooling.NONE : Pooling.MEAN;
            assertThat(context.pooling()).isEqualTo(expected);
        }
    }
}
