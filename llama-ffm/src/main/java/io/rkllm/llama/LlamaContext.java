package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.invoke.MethodHandle;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One llama.cpp context: its KV cache holds several sequences (conversations, or texts to embed), decoded
 * together in one batch per step. Every method is a native call to be made by one owner thread, in order; the
 * abort check given to {@link #decode(Batch, BooleanSupplier)} is what another thread may flip to stop a decode.
 */
public final class LlamaContext implements AutoCloseable {
    private final NativeLlama api;
    private final LoadedWeights model;
    /** Told when the context closes (its model forgets it). */
    private final Consumer<Object> onClose;
    private final ContextParams params;
    private final LogSink log;
    private final Arena arena;
    private final MemorySegment handle;
    private final AbortCallback abort;
    private final CheckedKvCache kv;
    private final BatchLimits limits;
    /**
     * Whether ggml calls the abort callback now. It calls it after every operation of a decode's graph (hundreds per
     * token), on the thread that decodes while the others wait at the next barrier ({@link AbortCallback}: native, a
     * few nanoseconds each; a Java upcall cost a small model's decode a tenth of its speed). A decode that nothing
     * may stop goes without it.
     */
    private boolean abortInstalled = true;
    /** {@code llama_decode}, invoked exactly: the generic call boxes and spreads its arguments at every token. */
    private final MethodHandle decodeCall;
    /** What the log asks while a decode runs, made once rather than at every decode. */
    private final BooleanSupplier abortFired;
    private long decodeCalls;
    private long decodedTokens;
    private boolean closed;

    private LlamaContext(NativeLlama api, LoadedWeights model, ContextParams params, LogSink log, Arena arena,
                         MemorySegment handle, AbortCallback abort, KvApi kvApi, boolean ownCaches,
                         Consumer<Object> onClose) {
        this.api = api;
        this.model = model;
        this.onClose = onClose;
        this.params = params;
        this.log = log;
        this.arena = arena;
        this.handle = handle;
        this.abort = abort;
        this.decodeCall = api.handle("llama_decode");
        this.abortFired = abort::fired;
        int sequenceLimit = (int) api.call("llama_n_seq_max", handle);
        this.limits = new BatchLimits((int) api.call("llama_n_batch", handle), (int) api.call("llama_n_ubatch", handle),
                sequenceLimit, PoolingGuard.causal(model.header()), model.vocabulary().size());
        KvCache cache = kvApi == KvApi.MEMORY ? MemoryKvCache.of(api, handle)
                : new ContextKvCache(api, kvApi, handle, sequenceLimit);
        this.kv = new CheckedKvCache(cache, sequenceLimit, ownCaches);
    }

    /** @param onClose told when the context closes, with the context */
    static LlamaContext create(NativeLlama api, LoadedWeights model, ContextParams params, LogSink log, KvApi kvApi,
                               Consumer<Object> onClose) {
        Arena arena = Arena.ofShared();
        try {
            GroupLayout l = api.layouts().contextParams();
            MemorySegment p = (MemorySegment) api.call("llama_context_default_params", (SegmentAllocator) arena);
            boolean ownCaches = !params.unifiedKv() && Structs.has(l, "kv_unified");
            // a build whose cache is always shared gets the cells of one sequence's context, not all of them
            p.set(JAVA_INT, Structs.offset(l, "n_ctx"), params.unifiedKv() || ownCaches ? params.contextLength()
                    : params.contextLength() / params.sequences());
            p.set(JAVA_INT, Structs.offset(l, "n_batch"), params.batchSize());
            p.set(JAVA_INT, Structs.offset(l, "n_ubatch"), params.microBatchSize());
            p.set(JAVA_INT, Structs.offset(l, "n_seq_max"), params.sequences());
            p.set(JAVA_INT, Structs.offset(l, "n_threads"), params.threads());
            p.set(JAVA_INT, Structs.offset(l, "n_threads_batch"), params.batchThreads());
            p.set(JAVA_BOOLEAN, Structs.offset(l, "embeddings"), params.embeddings());
            p.set(JAVA_INT, Structs.offset(l, "pooling_type"), params.pooling().value());
            p.set(JAVA_BOOLEAN, Structs.offset(l, "no_perf"), false);
            if (Structs.has(l, "kv_unified")) {
                p.set(JAVA_BOOLEAN, Structs.offset(l, "kv_unified"), params.unifiedKv());
            }
            if (params.flashAttention() && Structs.has(l, "flash_attn")) {
                p.set(JAVA_BOOLEAN, Structs.offset(l, "flash_attn"), true);
            }
            AbortCallback abort = new AbortCallback();
            p.set(ADDRESS, Structs.offset(l, "abort_callback"), abort.stub(arena));
            p.set(ADDRESS, Structs.offset(l, "abort_callback_data"), abort.data());
            log.clearProblems();
            MemorySegment handle = (MemorySegment) api.call("llama_init_from_model", model.handle(), p);
            if (handle.equals(MemorySegment.NULL)) {
                throw new LlamaException("llama_init_from_model failed for " + model.path() + " (" + params + ")"
                        + log.reasons());
            }
            return new LlamaContext(api, model, params, log, arena, handle, abort, kvApi, ownCaches, onClose);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** The vocabulary of its model (a sampler runs only on a context of its own model's). */
    public Vocabulary vocabulary() {
        return model.vocabulary();
    }

    public ContextParams params() {
        return params;
    }

    /** The context's cells ({@code llama_n_ctx}; the library may round the requested length up). */
    public int contextLength() {
        return (int) api.call("llama_n_ctx", live());
    }

    public int batchSize() {
        return (int) api.call("llama_n_batch", live());
    }

    public int sequences() {
        return (int) api.call("llama_n_seq_max", live());
    }

    /** The pooling in effect ({@code llama_pooling_type}): the context's, else the model's. */
    public Pooling pooling() {
        return Pooling.of((int) api.call("llama_pooling_type", live()));
    }

    public KvCache kv() {
        live();
        return kv;
    }

    /** Whether each sequence has a KV cache of its own (llama.cpp's streams, {@code kv_unified} off). */
    public boolean cachePerSequence() {
        return kv.ownCaches();
    }

    /**
     * Whether the library saves and restores a sequence's cells ({@code llama_state_seq_*}): a conversation's KV
     * state kept in memory while its sequence serves another, put back when it returns.
     */
    public boolean savesSequences() {
        return api.has("llama_state_seq_get_size") && api.has("llama_state_seq_get_data")
                && api.has("llama_state_seq_set_data");
    }

    /** The bytes a sequence's saved state takes ({@code llama_state_seq_get_size}). */
    public long sequenceStateSize(int sequence) {
        return (long) api.call("llama_state_seq_get_size", live(), checkSequence(sequence));
    }

    /**
     * Saves a sequence's cells (its tokens' keys and values, with their positions) into {@code into}, which holds
     * at least {@link #sequenceStateSize}; the bytes written, 0 when llama.cpp could not.
     */
    public long saveSequence(int sequence, MemorySegment into) {
        return (long) api.call("llama_state_seq_get_data", live(), into, into.byteSize(), checkSequence(sequence));
    }

    /**
     * Puts a saved state into {@code sequence}, which must be empty: true when llama.cpp took it (it refuses a
     * state that does not fit the cache, leaving the sequence empty).
     */
    public boolean restoreSequence(int sequence, MemorySegment state) {
        long read = (long) api.call("llama_state_seq_set_data", live(), state, state.byteSize(),
                checkSequence(sequence));
        if (read > 0) {
            kv.restored(sequence);
        }
        return read > 0;
    }

    private int checkSequence(int sequence) {
        if (sequence < 0 || sequence >= limits.sequenceLimit()) {
            throw new IllegalArgumentException("sequence " + sequence + "; the context holds sequences 0 to "
                    + (limits.sequenceLimit() - 1));
        }
        return sequence;
    }

    public void setThreads(int threads, int batchThreads) {
        api.call("llama_set_n_threads", live(), threads, batchThreads);
    }

    /** Switches between logits and embeddings output for the next decodes. */
    public void setEmbeddings(boolean embeddings) {
        api.call("llama_set_embeddings", live(), embeddings);
    }

    /** {@link #decode(Batch, BooleanSupplier)} that is never aborted. */
    public DecodeStatus decode(Batch batch) {
        return decode(batch, null);
    }

    /**
     * Decodes the batch: its tokens enter their sequences' KV cache, and the outputs it asked for become readable
     * ({@link #logits}, {@link #embedding}). {@code abort} is asked between the graph's operations (on ggml's
     * threads); when it says stop, the decode ends {@link DecodeStatus#ABORTED} and the batch's positions are
     * removed from its sequences, so the cache holds what it held before. A null {@code abort}: never stopped (ggml
     * then asks nothing between operations, which a small model's decode feels). What llama.cpp logs about a stop it was
     * asked for is logged at debug level, not as the failure it reports.
     *
     * @throws LlamaException when libllama refuses the batch or fails
     */
    public DecodeStatus decode(Batch batch, BooleanSupplier abort) {
        live();
        limits.check(batch);
        int code;
        log.clearProblems();
        installAbort(abort != null);
        this.abort.begin(abort);
        log.decoding(abortFired);
        try {
            code = (int) decodeCall.invokeExact(handle, batch.struct());
        } catch (Throwable t) {
            throw NativeLlama.unchecked("llama_decode", t);
        } finally {
            log.decoded();
            this.abort.end();
        }
        decodeCalls++;
        switch (code) {
            case 0 -> {
                decodedTokens += batch.size();
                kv.decoded(batch);
                return DecodeStatus.OK;
            }
            case 1 -> {
                forgetBatch(batch);
                return DecodeStatus.NO_KV_SLOT;
            }
            case 2 -> {
                forgetBatch(batch);
                return DecodeStatus.ABORTED;
            }
            default -> {
                String reasons = log.reasons();
                forgetBatch(batch);
                throw new LlamaException("llama_decode failed with code " + code + reasons);
            }
        }
    }

    /**
     * Asks the check of the decode under way again now, from any thread: call it after making the check say stop
     * (a run cancelled), and the decode stops at its next operation rather than at the watcher's next turn.
     */
    public void recheckAbort() {
        abort.recheck();
    }

    /** Sets or clears the context's abort callback when it is not as wanted ({@code llama_set_abort_callback}). */
    private void installAbort(boolean wanted) {
        if (wanted == abortInstalled) {
            return;
        }
        api.call("llama_set_abort_callback", handle, wanted ? abort.stub(arena) : MemorySegment.NULL,
                wanted ? abort.data() : MemorySegment.NULL);
        abortInstalled = wanted;
    }

    /**
     * After a decode that did not finish (a batch larger than a micro-batch may have been decoded in part): each
     * sequence of the batch loses the positions from the batch's first one on, so the cache holds what it held.
     */
    private void forgetBatch(Batch batch) {
        Map<Integer, Integer> first = new HashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            for (int sequence : batch.sequences(i)) {
                first.merge(sequence, batch.position(i), Math::min);
            }
        }
        first.forEach((sequence, position) -> kv.remove(sequence, position, -1));
    }

    /** The logits of batch entry {@code index} of the last decode (one per vocabulary token). */
    public float[] logits(int index) {
        MemorySegment logits = (MemorySegment) api.call("llama_get_logits_ith", live(), index);
        if (logits.equals(MemorySegment.NULL)) {
            throw new LlamaException("no logits for batch entry " + index + " (was its output asked for?)");
        }
        int n = model.vocabulary().size();
        return logits.reinterpret((long) n * Float.BYTES).toArray(JAVA_FLOAT);
    }

    /** The embedding of batch entry {@code index} of the last decode (an embedding context without pooling). */
    public float[] embedding(int index) {
        MemorySegment e = (MemorySegment) api.call("llama_get_embeddings_ith", live(), index);
        if (e.equals(MemorySegment.NULL)) {
            throw new LlamaException("no embedding for batch entry " + index);
        }
        return e.reinterpret((long) model.embeddingLength() * Float.BYTES).toArray(JAVA_FLOAT);
    }

    /**
     * The pooled embedding of a sequence after the last decode (an embedding context with pooling): the model's
     * embedding length, or for {@link Pooling#RANK} its classifier outputs (one score for a reranker).
     */
    public float[] sequenceEmbedding(int sequence) {
        MemorySegment e = (MemorySegment) api.call("llama_get_embeddings_seq", live(), sequence);
        if (e.equals(MemorySegment.NULL)) {
            throw new LlamaException("no pooled embedding for sequence " + sequence + " (pooling " + pooling() + ")");
        }
        int n = pooling() == Pooling.RANK ? model.classifierOutputs() : model.embeddingLength();
        return e.reinterpret((long) n * Float.BYTES).toArray(JAVA_FLOAT);
    }

    /** {@code llama_decode} calls made through this context. */
    public long decodeCalls() {
        return decodeCalls;
    }

    /** Tokens of successful decodes: what the context actually computed. */
    public long decodedTokens() {
        return decodedTokens;
    }

    /** llama.cpp's own counters ({@code llama_perf_context}), where the library has them. */
    public Optional<PerfData> perf() {
        if (!api.has("llama_perf_context")) {
            return Optional.empty();
        }
        GroupLayout l = api.layouts().perfContext();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment d = (MemorySegment) api.call("llama_perf_context", (SegmentAllocator) a, live());
            return Optional.of(new PerfData(d.get(JAVA_DOUBLE, Structs.offset(l, "t_load_ms")),
                    d.get(JAVA_DOUBLE, Structs.offset(l, "t_p_eval_ms")),
                    d.get(JAVA_DOUBLE, Structs.offset(l, "t_eval_ms")),
                    d.get(JAVA_INT, Structs.offset(l, "n_p_eval")), d.get(JAVA_INT, Structs.offset(l, "n_eval"))));
        }
    }

    public void resetPerf() {
        if (api.has("llama_perf_context_reset")) {
            api.call("llama_perf_context_reset", live());
        }
    }

    MemorySegment handle() {
        return live();
    }

    private MemorySegment live() {
        if (closed) {
            throw new IllegalStateException("the context is closed");
        }
        return handle;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            abort.close();
            api.call("llama_free", handle);
            arena.close();
            onClose.accept(this);
        }
    }
}
