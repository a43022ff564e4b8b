package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.rkllm.llama.grammar.GbnfCheck;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.invoke.MethodHandle;
import java.util.BitSet;

/**
 * A llama.cpp sampler chain built from {@link SamplingParams}: the logit biases first, then the penalties, then
 * greedy or the draw's samplers. Sampling also accepts the token into the chain's
 * history (for the repetition penalties and the grammar). One per sequence; used by the context's owner thread.
 *
 * <p>With a grammar, sampling is done here around llama.cpp's samplers, as llama.cpp's own common sampler does
 * with the grammar as a sampler of its own: the candidates are the logits with the tokens that would break UTF-8
 * (see {@link Utf8State}) or that are control tokens taken out, then the grammar's sampler narrows them, then the
 * chain picks one, and both accept it. When the grammar leaves no token at all, this is an exception here: given
 * to the chain, it would pick a token the grammar refuses, on which llama.cpp aborts the process.
 */
public final class Sampler implements AutoCloseable {
    private static final long DATA = LlamaLayouts.TOKEN_DATA.byteSize();
    private static final long ID = Structs.offset(LlamaLayouts.TOKEN_DATA, "id");
    private static final long LOGIT = Structs.offset(LlamaLayouts.TOKEN_DATA, "logit");
    private static final long P = Structs.offset(LlamaLayouts.TOKEN_DATA, "p");
    private static final long ARRAY_DATA = Structs.offset(LlamaLayouts.TOKEN_DATA_ARRAY, "data");
    private static final long ARRAY_SIZE = Structs.offset(LlamaLayouts.TOKEN_DATA_ARRAY, "size");
    private static final long ARRAY_SELECTED = Structs.offset(LlamaLayouts.TOKEN_DATA_ARRAY, "selected");
    private static final long ARRAY_SORTED = Structs.offset(LlamaLayouts.TOKEN_DATA_ARRAY, "sorted");

    /** {@code llama_logit_bias}: a token and a float. */
    private static final int LOGIT_BIAS = Integer.BYTES + Float.BYTES;

    private final NativeLlama api;
    private final Vocabulary vocabulary;
    private final SamplingParams params;
    private MemorySegment chain;
    private MemorySegment grammar;
    private Arena arena;
    private MemorySegment candidates;
    private MemorySegment array;
    private TokenText text;
    private int utf8 = Utf8State.COMPLETE;
    /** {@code llama_sampler_sample}, invoked exactly: the generic call boxes and spreads its arguments each token. */
    private final MethodHandle sampleCall;

    private Sampler(NativeLlama api, Vocabulary vocabulary, SamplingParams params, MemorySegment chain) {
        this.api = api;
        this.sampleCall = api.handle("llama_sampler_sample");
        this.vocabulary = vocabulary;
        this.params = params;
        this.chain = chain;
    }

    /**
     * @throws io.rkllm.llama.grammar.InvalidGrammarException for a grammar llama.cpp would refuse or fail on,
     *         checked in Java first: build 4916 reports no grammar it cannot parse (its sampler then constrains
     *         nothing) and does not detect left recursion
     */
    static Sampler create(NativeLlama api, Vocabulary vocabulary, SamplingParams params, LogSink log) {
        params.grammar().ifPresent(GbnfCheck::check);
        MemorySegment chain;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment chainParams = (MemorySegment) api.call("llama_sampler_chain_default_params",
                    (SegmentAllocator) arena);
            chain = (MemorySegment) api.call("llama_sampler_chain_init", chainParams);
            if (chain.equals(MemorySegment.NULL)) {
                throw new LlamaException("llama_sampler_chain_init failed");
            }
            Sampler sampler = new Sampler(api, vocabulary, params, chain);
            try {
                if (params.grammar().isPresent()) {
                    log.clearProblems();
                    MemorySegment grammar = (MemorySegment) api.call("llama_sampler_init_grammar", vocabulary.segment(),
                            arena.allocateFrom(params.grammar().get()), arena.allocateFrom("root"));
                    if (grammar.equals(MemorySegment.NULL)) {
                        throw new LlamaException("the grammar was refused: " + String.join("; ", log.problems()));
                    }
                    sampler.grammar = grammar;
                    sampler.text = vocabulary.tokenText();
                    sampler.arena = Arena.ofShared();
                    sampler.candidates = sampler.arena.allocate(DATA * vocabulary.size(), 8);
                    sampler.array = sampler.arena.allocate(LlamaLayouts.TOKEN_DATA_ARRAY);
                }
                if (!params.logitBias().isEmpty()) {
                    sampler.add((MemorySegment) api.call("llama_sampler_init_logit_bias", vocabulary.size(),
                            params.logitBias().size(), biases(arena, vocabulary, params)));
                }
                if (params.penalises()) {
                    sampler.add(api.layouts().generation().penaltiesTakeVocabSize()
                            ? (MemorySegment) api.call("llama_sampler_init_penalties", vocabulary.size(),
                                    params.penaltyLastN(), params.repeatPenalty(), params.frequencyPenalty(),
                                    params.presencePenalty())
                            : (MemorySegment) api.call("llama_sampler_init_penalties", params.penaltyLastN(),
                                    params.repeatPenalty(), params.frequencyPenalty(), params.presencePenalty()));
                }
                if (params.isGreedy()) {
                    sampler.add((MemorySegment) api.call("llama_sampler_init_greedy"));
                } else {
                    if (params.topK() > 0) {
                        sampler.add((MemorySegment) api.call("llama_sampler_init_top_k", params.topK()));
                    }
                    if (params.typicalP() < 1f) {
                        sampler.add((MemorySegment) api.call("llama_sampler_init_typical", params.typicalP(), 1L));
                    }
                    if (params.topP() < 1f) {
                        sampler.add((MemorySegment) api.call("llama_sampler_init_top_p", params.topP(), 1L));
                    }
                    if (params.minP() > 0f) {
                        sampler.add((MemorySegment) api.call("llama_sampler_init_min_p", params.minP(), 1L));
                    }
                    sampler.add((MemorySegment) api.call("llama_sampler_init_temp", params.temperature()));
                    sampler.add((MemorySegment) api.call("llama_sampler_init_dist", (int) params.seed()));
                }
                return sampler;
            } catch (RuntimeException e) {
                sampler.close();
                throw e;
            }
        }
    }

    /** The biases as {@code llama_logit_bias} structs (llama.cpp copies them). */
    private static MemorySegment biases(Arena arena, Vocabulary vocabulary, SamplingParams params) {
        MemorySegment biases = arena.allocate((long) LOGIT_BIAS * params.logitBias().size(), Integer.BYTES);
        long at = 0;
        for (LogitBias b : params.logitBias()) {
            vocabulary.checkToken(b.token());
            biases.set(JAVA_INT, at, b.token());
            biases.set(JAVA_FLOAT, at + Integer.BYTES, b.bias());
            at += LOGIT_BIAS;
        }
        return biases;
    }

    /** Adds a sampler to the chain, which owns it from then on. */
    private void add(MemorySegment sampler) {
        if (sampler.equals(MemorySegment.NULL)) {
            throw new LlamaException("a llama.cpp sampler could not be created");
        }
        api.call("llama_sampler_chain_add", chain, sampler);
    }

    public SamplingParams params() {
        return params;
    }

    /** Samples from the logits of batch entry {@code index} of the context's last decode, and accepts the token. */
    public int sample(LlamaContext context, int index) {
        if (context.vocabulary() != vocabulary) {
            throw new IllegalArgumentException("a sampler of another model");
        }
        if (grammar == null) {
            try {
                return (int) sampleCall.invokeExact(live(), context.handle(), index);
            } catch (Throwable t) {
                throw NativeLlama.unchecked("llama_sampler_sample", t);
            }
        }
        return sampleUnderGrammar(context, index);
    }

    private int sampleUnderGrammar(LlamaContext context, int index) {
        MemorySegment live = live();
        int n = vocabulary.size();
        MemorySegment logits = (MemorySegment) api.call("llama_get_logits_ith", context.handle(), index);
        if (logits.equals(MemorySegment.NULL)) {
            throw new LlamaException("no logits for batch entry " + index + " (was its output asked for?)");
        }
        logits = logits.reinterpret((long) n * Float.BYTES);
        BitSet allowed = text.allowed(utf8);
        for (int token = 0; token < n; token++) {
            long at = token * DATA;
            candidates.set(JAVA_INT, at + ID, token);
            candidates.set(JAVA_FLOAT, at + LOGIT, allowed.get(token)
                    ? logits.getAtIndex(JAVA_FLOAT, token) : Float.NEGATIVE_INFINITY);
            candidates.set(JAVA_FLOAT, at + P, 0f);
        }
        array.set(ADDRESS, ARRAY_DATA, candidates);
        array.set(JAVA_LONG, ARRAY_SIZE, n);
        array.set(JAVA_LONG, ARRAY_SELECTED, -1L);
        array.set(JAVA_BOOLEAN, ARRAY_SORTED, false);
        api.call("llama_sampler_apply", grammar, array);
        if (!anyLeft()) {
            throw new LlamaException("the grammar allows no token here (the model's vocabulary may lack a character "
                    + "it needs): the generation cannot go on under it");
        }
        api.call("llama_sampler_apply", live, array);
        long size = array.get(JAVA_LONG, ARRAY_SIZE);
        long selected = array.get(JAVA_LONG, ARRAY_SELECTED);
        MemorySegment data = array.get(ADDRESS, ARRAY_DATA).reinterpret(size * DATA);
        if (selected < 0 || selected >= size
                || data.get(JAVA_FLOAT, selected * DATA + LOGIT) == Float.NEGATIVE_INFINITY) {
            throw new LlamaException("the sampler chain picked no token the grammar allows");
        }
        int token = data.get(JAVA_INT, selected * DATA + ID);
        api.call("llama_sampler_accept", grammar, token);
        api.call("llama_sampler_accept", live, token);
        utf8 = text.after(utf8, token);
        return token;
    }

    /** Whether any candidate is left after the grammar (the samplers may point the array at their own data). */
    private boolean anyLeft() {
        long size = array.get(JAVA_LONG, ARRAY_SIZE);
        MemorySegment data = array.get(ADDRESS, ARRAY_DATA).reinterpret(size * DATA);
        for (long i = 0; i < size; i++) {
            if (data.get(JAVA_FLOAT, i * DATA + LOGIT) != Float.NEGATIVE_INFINITY) {
                return true;
            }
        }
        return false;
    }

    /**
     * Adds a token to the chain's history without sampling it (a prompt's tokens, for the penalties). Refused for a
     * chain with a grammar: a token the grammar does not allow makes llama.cpp throw through C, which ends the
     * process.
     */
    public void accept(int token) {
        vocabulary.checkToken(token);
        if (grammar != null) {
            throw new IllegalStateException("a sampler with a grammar takes only the tokens it sampled");
        }
        api.call("llama_sampler_accept", live(), token);
    }

    /** Forgets the history (a new generation); a grammar starts again from its beginning. */
    public void reset() {
        api.call("llama_sampler_reset", live());
        if (grammar != null) {
            api.call("llama_sampler_reset", grammar);
            utf8 = Utf8State.COMPLETE;
        }
    }

    private MemorySegment live() {
        if (chain == null) {
            throw new IllegalStateException("the sampler is closed");
        }
        return chain;
    }

    @Override
    public void close() {
        if (chain != null) {
            api.call("llama_sampler_free", chain);
            chain = null;
        }
        if (grammar != null) {
            api.call("llama_sampler_free", grammar);
            grammar = null;
        }
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }
}
