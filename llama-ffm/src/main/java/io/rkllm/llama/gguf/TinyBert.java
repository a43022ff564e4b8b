package io.rkllm.llama.gguf;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Generates a tiny reranker that the real llama.cpp loads with rank pooling: a BERT-architecture encoder (llama.cpp's
 * {@code bert}, which XLM-RoBERTa rerankers such as bge-reranker-v2-m3 are converted to) with a classification head,
 * random weights from a fixed seed, the tiny models' byte-level BPE vocabulary and RoBERTa's special tokens
 * ({@code <s>}, {@code <pad>}, {@code </s>}, the separator being {@code </s>}). Its scores mean nothing, but they
 * are the same every time and differ from one document to the next, so tests can check the rerank path end to end.
 *
 * <p>What llama.cpp (build 4916 and later) requires of a {@code bert} model, and so what this writes: token, token
 * type and position embeddings and their layer norm; per layer Q, K, V and output projections with biases, the
 * attention-output norm, a GELU feed-forward with biases and the layer-output norm; {@code bert.attention.causal}
 * false; {@code tokenizer.ggml.token_type_count} (the token-type table's rows, else its shape is wrong). Rank
 * pooling reads the first token's row through {@code cls} (dense, then tanh) and {@code cls.output} (one score).
 */
public final class TinyBert {
    public static final String BOS = "<s>";
    public static final String PAD = "<pad>";
    public static final String EOS = "</s>";
    /** {@code <arch>.pooling_type} of a reranker: llama.cpp's {@code LLAMA_POOLING_TYPE_RANK}. */
    private static final int RANK_POOLING = 4;
    private static final int TOKEN_TYPES = 2;

    /** @param omitted tensors left out, for tests of refusals (a classification head without its bias) */
    public record Options(long seed, int embeddingLength, int layers, int heads, int feedForwardLength,
                          int contextLength, int merges, TensorType type, Set<String> omitted) {

        public Options {
            omitted = Set.copyOf(omitted);
        }

        /** Two layers of width 64, 512 positions: well under a megabyte. */
        public static Options reranker() {
            return new Options(11, 64, 2, 4, 128, 512, 200, TensorType.F32, Set.of());
        }

        public Options withType(TensorType value) {
            return new Options(seed, embeddingLength, layers, heads, feedForwardLength, contextLength, merges, value,
                    omitted);
        }

        /** A broken model: the same, without tensor {@code name}. */
        public Options withoutTensor(String name) {
            Set<String> more = new java.util.HashSet<>(omitted);
            more.add(name);
            return new Options(seed, embeddingLength, layers, heads, feedForwardLength, contextLength, merges, type,
                    more);
        }
    }

    private TinyBert() {
    }

    public static void write(Path path, Options options) throws IOException {
        ByteLevelBpe bpe = ByteLevelBpe.learn(TinyLlama.CORPUS, options.merges());
        List<String> tokens = new ArrayList<>(bpe.tokens());
        int bos = tokens.size();
        tokens.addAll(List.of(BOS, PAD, EOS));
        int pad = bos + 1;
        int eos = bos + 2;
        int[] tokenTypes = new int[tokens.size()];
        for (int i = 0; i < tokenTypes.length; i++) {
            tokenTypes[i] = i >= bos ? 3 : 1; // CONTROL for the special tokens, NORMAL otherwise
        }
        int vocab = tokens.size();
        int embd = options.embeddingLength();
        int ff = options.feedForwardLength();
        String arch = "bert";

        GgufWriter w = new GgufWriter()
                .putString("general.architecture", arch)
                .putString("general.name", "tiny-bert-reranker")
                .putUint32("general.file_type", options.type() == TensorType.F16 ? 1 : 0)
                .putUint32(arch + ".context_length", options.contextLength())
                .putUint32(arch + ".embedding_length", embd)
                .putUint32(arch + ".block_count", options.layers())
                .putUint32(arch + ".feed_forward_length", ff)
                .putUint32(arch + ".attention.head_count", options.heads())
                .putFloat32(arch + ".attention.layer_norm_epsilon", 1e-5f)
                .putBool(arch + ".attention.causal", false)
                .putUint32(arch + ".pooling_type", RANK_POOLING)
                .putString("tokenizer.ggml.model", "gpt2")
                .putString("tokenizer.ggml.pre", "default")
                .putStrings("tokenizer.ggml.tokens", tokens)
                .putInt32s("tokenizer.ggml.token_type", tokenTypes)
                .putStrings("tokenizer.ggml.merges", bpe.merges())
                .putUint32("tokenizer.ggml.token_type_count", TOKEN_TYPES)
                .putUint32("tokenizer.ggml.bos_token_id", bos)
                .putUint32("tokenizer.ggml.eos_token_id", eos)
                // GGUF's spelling of the key
                .putUint32("tokenizer.ggml.seperator_token_id", eos)
                .putUint32("tokenizer.ggml.padding_token_id", pad)
                .putBool("tokenizer.ggml.add_bos_token", true)
                .putBool("tokenizer.ggml.add_eos_token", true);

        SeededWeights r = new SeededWeights(options.seed());
        TensorType t = options.type();
        float scale = (float) (1 / Math.sqrt(embd));
        float ffScale = (float) (1 / Math.sqrt(ff));
        w.addTensor("token_embd.weight", new long[] {embd, vocab}, t, r.normal(embd * vocab, 1f));
        w.addTensor("token_types.weight", new long[] {embd, TOKEN_TYPES}, TensorType.F32,
                r.normal(embd * TOKEN_TYPES, 0.1f));
        w.addTensor("position_embd.weight", new long[] {embd, options.contextLength()}, TensorType.F32,
                r.normal(embd * options.contextLength(), 0.1f));
        norm(w, "token_embd_norm", embd);
        for (int layer = 0; layer < options.layers(); layer++) {
            String p = "blk." + layer + ".";
            for (String projection : List.of("attn_q", "attn_k", "attn_v", "attn_output")) {
                w.addTensor(p + projection + ".weight", new long[] {embd, embd}, t, r.normal(embd * embd, scale));
                w.addTensor(p + projection + ".bias", new long[] {embd}, TensorType.F32, r.normal(embd, 0.02f));
            }
            norm(w, p + "attn_output_norm", embd);
            w.addTensor(p + "ffn_up.weight", new long[] {embd, ff}, t, r.normal(embd * ff, scale));
            w.addTensor(p + "ffn_up.bias", new long[] {ff}, TensorType.F32, r.normal(ff, 0.02f));
            w.addTensor(p + "ffn_down.weight", new long[] {ff, embd}, t, r.normal(ff * embd, ffScale));
            w.addTensor(p + "ffn_down.bias", new long[] {embd}, TensorType.F32, r.normal(embd, 0.02f));
            norm(w, p + "layer_output_norm", embd);
        }
        w.addTensor("cls.weight", new long[] {embd, embd}, t, r.normal(embd * embd, scale));
        w.addTensor("cls.bias", new long[] {embd}, TensorType.F32, r.normal(embd, 0.02f));
        w.addTensor("cls.output.weight", new long[] {embd, 1}, t, r.normal(embd, scale));
        w.addTensor("cls.output.bias", new long[] {1}, TensorType.F32, new float[] {0f});
        // dropped after every weight was drawn: the others stay what they are in the whole model
        options.omitted().forEach(w::dropTensor);
        w.write(path);
    }

    /** A layer norm that starts as the identity: weights of one, biases of zero. */
    private static void norm(GgufWriter w, String name, int n) {
        w.addTensor(name + ".weight", new long[] {n}, TensorType.F32, TinyLlama.ones(n));
        w.addTensor(name + ".bias", new long[] {n}, TensorType.F32, new float[n]);
    }
}
