package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.rkllm.llama.gguf.GgufFile;
import io.rkllm.llama.gguf.GgufFormatException;
import io.rkllm.llama.gguf.GgufReader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One loaded GGUF model (weights mapped, vocabulary ready): tokenizing, metadata and chat template, and the
 * contexts and samplers that run it. Its methods are native calls for one owner thread; contexts still open when
 * the model closes are closed first.
 */
public final class LlamaModel implements AutoCloseable {
    private static final long MAX_TEXT = 1 << 20;

    private final NativeLlama api;
    private final LogSink log;
    private final KvApi kvApi;
    private final ModelParams params;
    private final MemorySegment handle;
    private final MemorySegment vocab;
    private final GgufFile header;
    private final List<LlamaContext> contexts = new ArrayList<>();
    private ModelInfo info;
    private int vocabularySize = -1;
    private TokenText tokenText;
    private boolean closed;

    private LlamaModel(NativeLlama api, LogSink log, KvApi kvApi, ModelParams params, MemorySegment handle,
                       GgufFile header) {
        this.api = api;
        this.header = header;
        this.log = log;
        this.kvApi = kvApi;
        this.params = params;
        this.handle = handle;
        this.vocab = (MemorySegment) api.call("llama_model_get_vocab", handle);
    }

    static LlamaModel load(NativeLlama api, LogSink log, KvApi kvApi, ModelParams params) {
        Path path = params.path();
        GgufFile header;
        try {
            header = new GgufReader(0).read(path); // a damaged file is refused here, in Java, not inside libllama
        } catch (GgufFormatException e) {
            throw new LlamaException("cannot load " + path + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new LlamaException("cannot read " + path + ": " + e, e);
        }
        try (Arena arena = Arena.ofConfined()) {
            GroupLayout l = api.layouts().modelParams();
            MemorySegment p = (MemorySegment) api.call("llama_model_default_params", (SegmentAllocator) arena);
            if (Structs.has(l, "use_mmap")) {
                p.set(JAVA_BOOLEAN, Structs.offset(l, "use_mmap"), params.useMmap());
            } else {
                p.set(JAVA_INT, Structs.offset(l, "load_mode"), params.useMmap() ? 1 : 0); // LLAMA_LOAD_MODE_MMAP/NONE
            }
            p.set(JAVA_BOOLEAN, Structs.offset(l, "vocab_only"), params.vocabOnly());
            params.gpuLayers().ifPresent(n -> p.set(JAVA_INT, Structs.offset(l, "n_gpu_layers"), n));
            log.clearProblems();
            MemorySegment handle = (MemorySegment) api.call("llama_model_load_from_file",
                    arena.allocateFrom(path.toString()), p);
            if (handle.equals(MemorySegment.NULL)) {
                throw new LlamaException("llama.cpp could not load " + path + reasons(log));
            }
            return new LlamaModel(api, log, kvApi, params, handle, header);
        }
    }

    /** ": " and the library's recent warnings and errors on this thread, or nothing. */
    static String reasons(LogSink log) {
        List<String> problems = log.problems();
        return problems.isEmpty() ? "" : ": " + String.join("; ", problems);
    }

    public Path path() {
        return params.path();
    }

    public ModelParams params() {
        return params;
    }

    /** A context for this model; closed by the caller (or with the model). */
    public LlamaContext newContext(ContextParams contextParams) {
        PoolingGuard.check(api.layouts().generation(), header, contextParams);
        PositionGuard.check(header, contextParams);
        LlamaContext context = LlamaContext.create(api, this, contextParams, log, kvApi);
        contexts.add(context);
        return context;
    }

    /** A sampler chain for one sequence of this model. */
    public Sampler newSampler(SamplingParams sampling) {
        live();
        return Sampler.create(api, this, sampling, log);
    }

    /**
     * The tokens of {@code text}. {@code addSpecial} adds the model's BOS where it wants one; {@code parseSpecial}
     * turns the text of special tokens ({@code <|im_start|>}) into those tokens instead of plain text.
     */
    public int[] tokenize(String text, boolean addSpecial, boolean parseSpecial) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment utf8 = arena.allocate(Math.max(1, bytes.length));
            MemorySegment.copy(bytes, 0, utf8, JAVA_BYTE, 0, bytes.length);
            int capacity = bytes.length + 8;
            while (true) {
                MemorySegment out = arena.allocate(JAVA_INT, capacity);
                int n = (int) api.call("llama_tokenize", vocab(), utf8, bytes.length, out, capacity, addSpecial,
                        parseSpecial);
                if (n >= 0) {
                    return out.asSlice(0, (long) n * Integer.BYTES).toArray(JAVA_INT);
                }
                if (n == Integer.MIN_VALUE || -n <= capacity) {
                    throw new LlamaException("llama_tokenize failed (" + n + ") for a text of " + bytes.length + " bytes");
                }
                capacity = -n;
            }
        }
    }

    /**
     * A reranker's input for one (query, document) pair, framed as llama-server frames it
     * ({@code BOS query EOS SEP document EOS}, each text tokenized without special tokens added, and a missing
     * special token left out): what a cross-encoder such as bge-reranker reads, scored by rank pooling.
     */
    public int[] rerankPair(String query, String document) {
        return rerankPair(query, document, Integer.MAX_VALUE);
    }

    /**
     * The pair, its document's tokens cut so that the whole is at most {@code maxTokens} long (a long passage is
     * scored by its beginning). The query is never cut: when it leaves no room for a document token, the pair is
     * longer than {@code maxTokens} and the caller refuses it.
     */
    public int[] rerankPair(String query, String document, int maxTokens) {
        int[] q = tokenize(query, false, true);
        int[] whole = tokenize(document, false, true);
        int framing = (bos() >= 0 ? 1 : 0) + (eos() >= 0 ? 2 : 0) + (sep() >= 0 ? 1 : 0);
        long room = Math.max(1L, (long) maxTokens - q.length - framing);
        int[] d = whole.length > room ? java.util.Arrays.copyOf(whole, (int) room) : whole;
        int[] out = new int[q.length + d.length + 4];
        int n = 0;
        n = put(out, n, bos());
        System.arraycopy(q, 0, out, n, q.length);
        n += q.length;
        n = put(out, n, eos());
        n = put(out, n, sep());
        System.arraycopy(d, 0, out, n, d.length);
        n += d.length;
        n = put(out, n, eos());
        return java.util.Arrays.copyOf(out, n);
    }

    private static int put(int[] tokens, int at, int token) {
        if (token < 0) {
            return at;
        }
        tokens[at] = token;
        return at + 1;
    }

    /**
     * The bytes of one token's piece (a byte-level token may be part of a UTF-8 character: join the bytes of
     * consecutive tokens before decoding). {@code special} renders special tokens' text instead of nothing.
     */
    public byte[] tokenToPiece(int token, boolean special) {
        checkToken(token);
        try (Arena arena = Arena.ofConfined()) {
            int capacity = 32;
            while (true) {
                MemorySegment out = arena.allocate(capacity);
                int n = (int) api.call("llama_token_to_piece", vocab(), token, out, capacity, 0, special);
                if (n >= 0) {
                    return out.asSlice(0, n).toArray(JAVA_BYTE);
                }
                if (-n <= capacity || -n > MAX_TEXT) {
                    throw new LlamaException("llama_token_to_piece failed (" + n + ") for token " + token);
                }
                capacity = -n;
            }
        }
    }

    /** The text of {@code tokens}; {@code renderSpecial} writes special tokens' text, else they are left out. */
    public String detokenize(int[] tokens, boolean renderSpecial) {
        for (int token : tokens) {
            checkToken(token);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocateFrom(JAVA_INT, tokens.length == 0 ? new int[] {0} : tokens);
            int capacity = tokens.length * 8 + 16;
            while (true) {
                MemorySegment out = arena.allocate(capacity);
                int n = (int) api.call("llama_detokenize", vocab(), in, tokens.length, out, capacity,
                        !renderSpecial, renderSpecial);
                if (n >= 0) {
                    return new String(out.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
                }
                if (-n <= capacity || -n > MAX_TEXT * 16) {
                    throw new LlamaException("llama_detokenize failed (" + n + ")");
                }
                capacity = -n;
            }
        }
    }

    public int vocabularySize() {
        if (vocabularySize < 0) {
            vocabularySize = (int) api.call("llama_vocab_n_tokens", vocab());
        }
        return vocabularySize;
    }

    /** llama.cpp looks tokens up with {@code at()}: one outside the vocabulary throws through C and ends the process. */
    /** Each token's text, for sampling under a grammar: built on first use (one call per token). */
    TokenText tokenText() {
        live();
        if (tokenText == null) {
            tokenText = TokenText.of(this);
        }
        return tokenText;
    }

    void checkToken(int token) {
        if (token < 0 || token >= vocabularySize()) {
            throw new IllegalArgumentException("token " + token + " is outside the vocabulary of " + vocabularySize());
        }
    }

    /** The beginning-of-sequence token, or -1 when the model has none. */
    public int bos() {
        return (int) api.call("llama_vocab_bos", vocab());
    }

    /** The end-of-sequence token, or -1. */
    public int eos() {
        return (int) api.call("llama_vocab_eos", vocab());
    }

    /** The separator token (BERT's {@code [SEP]}, which rerankers read between a query and a document), or -1. */
    public int sep() {
        return api.has("llama_vocab_sep") ? (int) api.call("llama_vocab_sep", vocab()) : -1;
    }

    /** The end-of-turn token, or -1. */
    public int eot() {
        return (int) api.call("llama_vocab_eot", vocab());
    }

    /** Whether the token ends a generation (EOS, EOT and the model's other end tokens). */
    public boolean isEndOfGeneration(int token) {
        checkToken(token);
        return (boolean) api.call("llama_vocab_is_eog", vocab(), token);
    }

    public boolean isControl(int token) {
        checkToken(token);
        return (boolean) api.call("llama_vocab_is_control", vocab(), token);
    }

    /** Whether tokenizing with {@code addSpecial} prepends the BOS token. */
    public boolean addsBos() {
        return (boolean) api.call("llama_vocab_get_add_bos", vocab());
    }

    /** The number of classifier outputs of a reranker (1 where the library cannot say). */
    int classifierOutputs() {
        return api.has("llama_model_n_cls_out") ? (int) api.call("llama_model_n_cls_out", live()) : 1;
    }

    /** A metadata value as a string ({@code llama_model_meta_val_str}). */
    public Optional<String> metadata(String key) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment k = arena.allocateFrom(key);
            return readString(capacity -> {
                MemorySegment out = arena.allocate(capacity);
                int n = (int) api.call("llama_model_meta_val_str", live(), k, out, (long) capacity);
                return new Sized(out, n);
            });
        }
    }

    /** The model's default chat template (a Jinja template), if the GGUF has one. */
    public Optional<String> chatTemplate() {
        MemorySegment text = (MemorySegment) api.call("llama_model_chat_template", live(), MemorySegment.NULL);
        return text.equals(MemorySegment.NULL) ? Optional.empty() : Optional.of(text.reinterpret(MAX_TEXT).getString(0));
    }

    public ModelInfo info() {
        if (info == null) {
            MemorySegment m = live();
            String description;
            try (Arena arena = Arena.ofConfined()) {
                description = readString(capacity -> {
                    MemorySegment out = arena.allocate(capacity);
                    return new Sized(out, (int) api.call("llama_model_desc", m, out, (long) capacity));
                }).orElse("");
            }
            info = new ModelInfo(description, (long) api.call("llama_model_size", m),
                    (long) api.call("llama_model_n_params", m), (int) api.call("llama_model_n_ctx_train", m),
                    (int) api.call("llama_model_n_embd", m), (int) api.call("llama_model_n_layer", m),
                    (int) api.call("llama_model_n_head", m), vocabularySize(),
                    (boolean) api.call("llama_model_has_encoder", m), (boolean) api.call("llama_model_has_decoder", m),
                    chatTemplate(), allMetadata());
        }
        return info;
    }

    private Map<String, String> allMetadata() {
        Map<String, String> all = new LinkedHashMap<>();
        int count = (int) api.call("llama_model_meta_count", live());
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < count; i++) {
                int index = i;
                Optional<String> key = readString(capacity -> {
                    MemorySegment out = arena.allocate(capacity);
                    return new Sized(out, (int) api.call("llama_model_meta_key_by_index", handle, index, out,
                            (long) capacity));
                });
                Optional<String> value = readString(capacity -> {
                    MemorySegment out = arena.allocate(capacity);
                    return new Sized(out, (int) api.call("llama_model_meta_val_str_by_index", handle, index, out,
                            (long) capacity));
                });
                if (key.isPresent()) {
                    all.put(key.get(), value.orElse(""));
                }
            }
        }
        return Collections.unmodifiableMap(all);
    }

    private record Sized(MemorySegment buffer, int length) {
    }

    private interface Filler {
        Sized fill(int capacity);
    }

    /** snprintf-style calls: the length needed comes back; a second call with room for it. */
    private static Optional<String> readString(Filler filler) {
        Sized first = filler.fill(256);
        if (first.length() < 0) {
            return Optional.empty();
        }
        Sized done = first.length() < 256 ? first : filler.fill((int) Math.min(first.length() + 1L, MAX_TEXT));
        int length = Math.min(done.length(), (int) done.buffer().byteSize() - 1);
        return Optional.of(new String(done.buffer().asSlice(0, length).toArray(JAVA_BYTE), StandardCharsets.UTF_8));
    }

    MemorySegment handle() {
        return live();
    }

    /** The file's header as read before loading (metadata and tensor table, no weights). */
    GgufFile header() {
        return header;
    }

    MemorySegment vocab() {
        live();
        return vocab;
    }

    void forget(LlamaContext context) {
        contexts.remove(context);
    }

    private MemorySegment live() {
        if (closed) {
            throw new IllegalStateException("the model is closed");
        }
        return handle;
    }

    @Override
    public void close() {
        if (!closed) {
            for (LlamaContext context : List.copyOf(contexts)) {
                context.close();
            }
            closed = true;
            api.call("llama_model_free", handle);
        }
    }
}
