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
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * One loaded GGUF model (weights mapped, vocabulary ready): tokenizing, metadata and chat template, and the
 * contexts and samplers that run it. Its methods are native calls for one owner thread, but for
 * {@link #lendVocabulary}, which any thread may call; contexts still open when the model closes are closed first.
 */
public final class LlamaModel implements AutoCloseable {
    private static final long MAX_TEXT = 1 << 20;

    private final NativeLlama api;
    private final LogSink log;
    private final KvApi kvApi;
    private final ModelParams params;
    private final MemorySegment handle;
    private final Vocabulary vocabulary;
    private final GgufFile header;
    private final List<LlamaContext> contexts = new ArrayList<>();
    /** Held for reading by other threads' vocabulary calls ({@link #lendVocabulary}), for writing by the free. */
    private final ReadWriteLock lending = new ReentrantReadWriteLock();
    private ModelInfo info;
    private volatile boolean closed;

    private LlamaModel(NativeLlama api, LogSink log, KvApi kvApi, ModelParams params, MemorySegment handle,
                       GgufFile header) {
        this.api = api;
        this.header = header;
        this.log = log;
        this.kvApi = kvApi;
        this.params = params;
        this.handle = handle;
        this.vocabulary = new Vocabulary(api, (MemorySegment) api.call("llama_model_get_vocab", handle), this::live);
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
                throw new LlamaException("llama.cpp could not load " + path + log.reasons());
            }
            return new LlamaModel(api, log, kvApi, params, handle, header);
        }
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
        LlamaContext context = LlamaContext.create(api, new LoadedWeights(live(), path(), header, vocabulary,
                info().embeddingLength(), classifierOutputs()), contextParams, log, kvApi, contexts::remove);
        contexts.add(context);
        return context;
    }

    /** A sampler chain for one sequence of this model. */
    public Sampler newSampler(SamplingParams sampling) {
        live();
        return Sampler.create(api, vocabulary, sampling, log);
    }

    /** Its vocabulary: tokens to text and back, its special tokens. */
    public Vocabulary vocabulary() {
        return vocabulary;
    }

    /**
     * Runs {@code use} with the vocabulary from any thread (llama.cpp's vocabulary is read-only once loaded, as
     * llama-server's HTTP threads tokenize beside its loop): the model is not freed while it runs, whichever thread
     * closes it.
     *
     * @throws ModelClosedException when the model was closed before
     */
    public <T> T lendVocabulary(Function<Vocabulary, T> use) {
        lending.readLock().lock();
        try {
            if (closed) {
                throw new ModelClosedException();
            }
            return use.apply(vocabulary);
        } finally {
            lending.readLock().unlock();
        }
    }

    /** {@link Vocabulary#tokenize}. */
    public int[] tokenize(String text, boolean addSpecial, boolean parseSpecial) {
        return vocabulary.tokenize(text, addSpecial, parseSpecial);
    }

    /** {@link Vocabulary#rerankPair(String, String)}. */
    public int[] rerankPair(String query, String document) {
        return vocabulary.rerankPair(query, document);
    }

    /** {@link Vocabulary#rerankPair(String, String, int)}. */
    public int[] rerankPair(String query, String document, int maxTokens) {
        return vocabulary.rerankPair(query, document, maxTokens);
    }

    /** {@link Vocabulary#tokenToPiece}. */
    public byte[] tokenToPiece(int token, boolean special) {
        return vocabulary.tokenToPiece(token, special);
    }

    /** {@link Vocabulary#detokenize}. */
    public String detokenize(int[] tokens, boolean renderSpecial) {
        return vocabulary.detokenize(tokens, renderSpecial);
    }

    public int vocabularySize() {
        return vocabulary.size();
    }

    public int bos() {
        return vocabulary.bos();
    }

    public int eos() {
        return vocabulary.eos();
    }

    public int sep() {
        return vocabulary.sep();
    }

    public int eot() {
        return vocabulary.eot();
    }

    /** {@link Vocabulary#isEndOfGeneration}. */
    public boolean isEndOfGeneration(int token) {
        return vocabulary.isEndOfGeneration(token);
    }

    public boolean isControl(int token) {
        return vocabulary.isControl(token);
    }

    public boolean addsBos() {
        return vocabulary.addsBos();
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
                    (long) api.call("llama_model_n_params", m), new ModelInfo.Shape(
                    (int) api.call("llama_model_n_ctx_train", m), (int) api.call("llama_model_n_embd", m),
                    (int) api.call("llama_model_n_layer", m), (int) api.call("llama_model_n_head", m),
                    vocabularySize(), (boolean) api.call("llama_model_has_encoder", m),
                    (boolean) api.call("llama_model_has_decoder", m)), chatTemplate(), allMetadata());
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

    private MemorySegment live() {
        if (closed) {
            throw new IllegalStateException("the model is closed");
        }
        return handle;
    }

    /** Frees the model once the vocabulary calls lent to other threads under way have returned. */
    @Override
    public void close() {
        lending.writeLock().lock();
        try {
            if (!closed) {
                for (LlamaContext context : List.copyOf(contexts)) {
                    context.close();
                }
                closed = true;
                api.call("llama_model_free", handle);
            }
        } finally {
            lending.writeLock().unlock();
        }
    }
}
