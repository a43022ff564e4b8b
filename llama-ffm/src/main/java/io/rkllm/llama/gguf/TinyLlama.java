package io.rkllm.llama.gguf;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates a tiny llama-architecture (or qwen3: the same with a norm on each head's queries and keys) GGUF model
 * that the real llama.cpp loads and runs: random weights from a
 * fixed seed, a byte-level BPE vocabulary learnt from a fixed text with ChatML's special tokens, a ChatML chat
 * template. Its text is nonsense, but it is the same nonsense every time: greedy decoding is deterministic, so
 * tests can assert on tokens, prefix reuse, parallel sequences and embeddings without downloading a model.
 * The embedding variant carries {@code llama.pooling_type} = mean (which llama.cpp builds that read the key
 * for every architecture apply; others need the pooling set on the context).
 */
public final class TinyLlama {
    public static final String IM_START = "<|im_start|>";
    public static final String IM_END = "<|im_end|>";
    public static final String END_OF_TEXT = "<|endoftext|>";
    public static final String CHAT_TEMPLATE = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n'"
            + " + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
            + "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

    /** The text the tiny models' byte-level BPE merges are learnt from. */
    static final String CORPUS = """
            The quick brown fox jumps over the lazy dog. A small model answers the user and the assistant \
            speaks in turn: system, user, assistant. The board has four big cores and four little cores, and \
            the server runs the model on them. Hello, hello! How are you today? I am fine, thank you. The \
            answer is 42, and the question is what it was. Tokens are pieces of text; the tokenizer splits \
            the text into tokens and the model reads them one by one, then writes the next one. This is the \
            end of the text. system user assistant system user assistant the the the and and and of of to to \
            in in is is it it that that for for on on with with as as at at by by this this from from.
            """;

    /**
     * @param shape        the sizes of its layers
     * @param embedding    write {@code llama.pooling_type} = mean and name the model as an embedding model
     * @param type         F32 or F16 weights
     * @param chatTemplate {@code tokenizer.chat_template}; none written when empty
     * @param architecture {@code llama}, or {@code qwen3} (which llama.cpp builds before mid-2025 do not know)
     * @param controls further control tokens after ChatML's, as a family's markers are ({@code <|channel|>})
     * @param addsBos whether its tokenizer opens a text with its BOS ({@code tokenizer.ggml.add_bos_token})
     */
    public record Options(long seed, Shape shape, int contextLength, int merges, TensorType type, boolean embedding,
                          String chatTemplate, String architecture, List<String> controls, boolean addsBos) {

        /**
         * @param declaredLayers the layers its metadata claims (as many as it has, but for tests of refusals)
         */
        public record Shape(int embeddingLength, int layers, int heads, int kvHeads, int feedForwardLength,
                            int declaredLayers) {
        }

        public Options {
            controls = List.copyOf(controls);
        }

        public Options(long seed, int embeddingLength, int layers, int heads, int kvHeads, int feedForwardLength,
                       int contextLength, int merges, TensorType type, boolean embedding, int declaredLayers) {
            this(seed, new Shape(embeddingLength, layers, heads, kvHeads, feedForwardLength, declaredLayers),
                    contextLength, merges, type, embedding, CHAT_TEMPLATE, "llama", List.of(), false);
        }

        public int embeddingLength() {
            return shape.embeddingLength();
        }

        public int layers() {
            return shape.layers();
        }

        public int heads() {
            return shape.heads();
        }

        public int kvHeads() {
            return shape.kvHeads();
        }

        public int feedForwardLength() {
            return shape.feedForwardLength();
        }

        public int declaredLayers() {
            return shape.declaredLayers();
        }

        public static Options chat() {
            return new Options(42, 64, 2, 4, 2, 192, 2048, 200, TensorType.F32, false, 2);
        }

        /** The chat model as a Qwen3: a current architecture, as a newly released model would be. */
        public static Options qwen3() {
            return chat().withArchitecture("qwen3");
        }

        public Options withArchitecture(String value) {
            if (!List.of("llama", "qwen3").contains(value)) {
                throw new IllegalArgumentException("a tiny model is llama or qwen3, not " + value);
            }
            return new Options(seed, shape, contextLength, merges, type, embedding, chatTemplate, value, controls,
                    addsBos);
        }

        public static Options embeddingModel() {
            return new Options(7, 64, 2, 4, 4, 128, 512, 200, TensorType.F32, true, 2);
        }

        public Options withType(TensorType value) {
            return new Options(seed, shape, contextLength, merges, value, embedding, chatTemplate, architecture,
                    controls, addsBos);
        }

        /** A broken model for tests of refusals: the metadata claims {@code value} layers, the tensors have fewer. */
        public Options withDeclaredLayers(int value) {
            return new Options(seed, new Shape(shape.embeddingLength(), shape.layers(), shape.heads(), shape.kvHeads(),
                    shape.feedForwardLength(), value), contextLength, merges, type, embedding, chatTemplate,
                    architecture, controls, addsBos);
        }

        /** With further control tokens, the markers of a family whose vocabulary has them as such. */
        public Options withControls(List<String> value) {
            return new Options(seed, shape, contextLength, merges, type, embedding, chatTemplate, architecture, value,
                    addsBos);
        }

        /** Another chat template ({@code ""}: none, as a model served with its family's template). */
        public Options withChatTemplate(String value) {
            return new Options(seed, shape, contextLength, merges, type, embedding, value, architecture, controls,
                    addsBos);
        }

        /** Its tokenizer opening every text with its BOS ({@code <|endoftext|>}), as Llama's and Gemma's do. */
        public Options withBos() {
            return new Options(seed, shape, contextLength, merges, type, embedding, chatTemplate, architecture,
                    controls, true);
        }
    }

    private TinyLlama() {
    }

    /**
     * Writes a tiny model outside the tests, for checks that serve one through a whole server (scripts/arm64-check
     * on an emulated aarch64 JVM): {@code java -cp rkllm-server.jar io.rkllm.llama.gguf.TinyLlama FILE
     * [chat|embedding]}.
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2
                || (args.length == 2 && !List.of("chat", "embedding", "qwen3").contains(args[1]))) {
            System.err.println("usage: TinyLlama FILE.gguf [chat|embedding|qwen3] (default chat)");
            System.exit(2);
        }
        String kind = args.length == 2 ? args[1] : "chat";
        Path file = Path.of(args[0]);
        write(file, switch (kind) {
            case "embedding" -> Options.embeddingModel();
            case "qwen3" -> Options.qwen3();
            default -> Options.chat();
        });
        System.out.println(file + ": tiny " + kind + " model, " + java.nio.file.Files.size(file) + " bytes");
    }

    /** The vocabulary every tiny model has: byte tokens, merges, then the three special tokens. */
    public static List<String> vocabulary(Options options) {
        List<String> tokens = new ArrayList<>(ByteLevelBpe.learn(CORPUS, options.merges()).tokens());
        tokens.addAll(List.of(END_OF_TEXT, IM_START, IM_END));
        return tokens;
    }

    public static void write(Path path, Options options) throws IOException {
        writer(options).write(path);
    }

    /** The model split into {@code parts} files as gguf-split writes them ({@link GgufWriter#writeSplit}). */
    public static List<Path> writeSplit(Path directory, String prefix, Options options, int parts) throws IOException {
        return writer(options).writeSplit(directory, prefix, parts);
    }

    private static GgufWriter writer(Options options) {
        ByteLevelBpe bpe = ByteLevelBpe.learn(CORPUS, options.merges());
        List<String> tokens = new ArrayList<>(bpe.tokens());
        int endOfText = tokens.size();
        tokens.addAll(List.of(END_OF_TEXT, IM_START, IM_END));
        tokens.addAll(options.controls());
        int imEnd = endOfText + 2;
        int[] tokenTypes = new int[tokens.size()];
        for (int i = 0; i < tokenTypes.length; i++) {
            tokenTypes[i] = i >= endOfText ? 3 : 1; // CONTROL for the special tokens, NORMAL otherwise
        }
        int vocab = tokens.size();
        int embd = options.embeddingLength();
        int headDim = embd / options.heads();
        int kvEmbd = headDim * options.kvHeads();
        String arch = options.architecture();

        GgufWriter w = new GgufWriter()
                .putString("general.architecture", arch)
                .putString("general.name", options.embedding() ? "tiny-" + arch + "-embed" : "tiny-" + arch)
                .putUint32("general.file_type", options.type() == TensorType.F16 ? 1 : 0)
                .putUint32(arch + ".context_length", options.contextLength())
                .putUint32(arch + ".embedding_length", embd)
                .putUint32(arch + ".block_count", options.declaredLayers())
                .putUint32(arch + ".feed_forward_length", options.feedForwardLength())
                .putUint32(arch + ".attention.head_count", options.heads())
                .putUint32(arch + ".attention.head_count_kv", options.kvHeads())
                .putUint32(arch + ".rope.dimension_count", headDim)
                .putFloat32(arch + ".rope.freq_base", 10000f)
                .putFloat32(arch + ".attention.layer_norm_rms_epsilon", 1e-5f)
                .putUint32(arch + ".vocab_size", vocab);
        if (options.embedding()) {
            w.putUint32(arch + ".pooling_type", 1);
        }
        w.putString("tokenizer.ggml.model", "gpt2")
                .putString("tokenizer.ggml.pre", "default")
                .putStrings("tokenizer.ggml.tokens", tokens)
                .putInt32s("tokenizer.ggml.token_type", tokenTypes)
                .putStrings("tokenizer.ggml.merges", bpe.merges())
                .putUint32("tokenizer.ggml.bos_token_id", endOfText)
                .putUint32("tokenizer.ggml.eos_token_id", imEnd)
                .putUint32("tokenizer.ggml.padding_token_id", endOfText)
                .putBool("tokenizer.ggml.add_bos_token", options.addsBos());
        if (!options.chatTemplate().isEmpty()) {
            w.putString("tokenizer.chat_template", options.chatTemplate());
        }

        SeededWeights r = new SeededWeights(options.seed());
        TensorType t = options.type();
        w.addTensor("token_embd.weight", new long[] {embd, vocab}, t, r.normal(embd * vocab, 1f));
        w.addTensor("output_norm.weight", new long[] {embd}, TensorType.F32, ones(embd));
        float[] output = r.normal(embd * vocab, (float) (2 / Math.sqrt(embd)));
        favourReadableTokens(output, tokens, embd, endOfText);
        w.addTensor("output.weight", new long[] {embd, vocab}, t, output);
        float scale = (float) (1 / Math.sqrt(embd));
        float ffScale = (float) (1 / Math.sqrt(options.feedForwardLength()));
        for (int layer = 0; layer < options.layers(); layer++) {
            String p = "blk." + layer + ".";
            w.addTensor(p + "attn_norm.weight", new long[] {embd}, TensorType.F32, ones(embd));
            w.addTensor(p + "attn_q.weight", new long[] {embd, embd}, t, r.normal(embd * embd, scale));
            w.addTensor(p + "attn_k.weight", new long[] {embd, kvEmbd}, t, r.normal(embd * kvEmbd, scale));
            w.addTensor(p + "attn_v.weight", new long[] {embd, kvEmbd}, t, r.normal(embd * kvEmbd, scale));
            w.addTensor(p + "attn_output.weight", new long[] {embd, embd}, t, r.normal(embd * embd, scale));
            if (arch.equals("qwen3")) {
                w.addTensor(p + "attn_q_norm.weight", new long[] {headDim}, TensorType.F32, ones(headDim));
                w.addTensor(p + "attn_k_norm.weight", new long[] {headDim}, TensorType.F32, ones(headDim));
            }
            w.addTensor(p + "ffn_norm.weight", new long[] {embd}, TensorType.F32, ones(embd));
            int ff = options.feedForwardLength();
            w.addTensor(p + "ffn_gate.weight", new long[] {embd, ff}, t, r.normal(embd * ff, scale));
            w.addTensor(p + "ffn_up.weight", new long[] {embd, ff}, t, r.normal(embd * ff, scale));
            w.addTensor(p + "ffn_down.weight", new long[] {ff, embd}, t, r.normal(ff * embd, ffScale));
        }
        return w;
    }

    /**
     * Scales the output rows of letter, digit and space tokens up and of control bytes down, so that greedy
     * decoding mostly writes readable pieces (the logs of a test are easier to read; nothing depends on it).
     */
    private static void favourReadableTokens(float[] output, List<String> tokens, int embd, int specials) {
        for (int token = 0; token < specials; token++) {
            String piece = tokens.get(token);
            boolean readable = piece.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == 'Ġ');
            float factor = readable ? 1.5f : 0.5f;
            for (int i = 0; i < embd; i++) {
                output[token * embd + i] *= factor;
            }
        }
    }

    static float[] ones(int n) {
        float[] values = new float[n];
        java.util.Arrays.fill(values, 1f);
        return values;
    }
}
