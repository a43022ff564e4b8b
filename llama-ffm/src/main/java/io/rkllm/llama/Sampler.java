package io.rkllm.llama;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

/**
 * A llama.cpp sampler chain built from {@link SamplingParams}. Sampling also accepts the token into the chain's
 * history (for the repetition penalties and the grammar). One per sequence; used by the context's owner thread.
 */
public final class Sampler implements AutoCloseable {
    private final NativeLlama api;
    private final LlamaModel model;
    private final SamplingParams params;
    private MemorySegment chain;

    private Sampler(NativeLlama api, LlamaModel model, SamplingParams params, MemorySegment chain) {
        this.api = api;
        this.model = model;
        this.params = params;
        this.chain = chain;
    }

    static Sampler create(NativeLlama api, LlamaModel model, SamplingParams params, LogSink log) {
        MemorySegment chain;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment chainParams = (MemorySegment) api.call("llama_sampler_chain_default_params",
                    (SegmentAllocator) arena);
            chain = (MemorySegment) api.call("llama_sampler_chain_init", chainParams);
            if (chain.equals(MemorySegment.NULL)) {
                throw new LlamaException("llama_sampler_chain_init failed");
            }
            Sampler sampler = new Sampler(api, model, params, chain);
            try {
                if (params.grammar().isPresent()) {
                    log.clearProblems();
                    MemorySegment grammar = (MemorySegment) api.call("llama_sampler_init_grammar", model.vocab(),
                            arena.allocateFrom(params.grammar().get()), arena.allocateFrom("root"));
                    if (grammar.equals(MemorySegment.NULL)) {
                        throw new LlamaException("the grammar was refused: " + String.join("; ", log.problems()));
                    }
                    sampler.add(grammar);
                }
                if (params.penalises()) {
                    sampler.add(api.layouts().generation().penaltiesTakeVocabSize()
                            ? (MemorySegment) api.call("llama_sampler_init_penalties", model.vocabularySize(),
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
        if (context.model() != model) {
            throw new IllegalArgumentException("a sampler of another model");
        }
        return (int) api.call("llama_sampler_sample", live(), context.handle(), index);
    }

    /** Adds a token to the chain's history without sampling it (a prompt's tokens, for the penalties). */
    public void accept(int token) {
        model.checkToken(token);
        api.call("llama_sampler_accept", live(), token);
    }

    /** Forgets the history (a new generation). */
    public void reset() {
        api.call("llama_sampler_reset", live());
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
    }
}
