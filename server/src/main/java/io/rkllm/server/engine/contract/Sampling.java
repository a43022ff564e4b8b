package io.rkllm.server.engine.contract;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Sampling settings of a run (per run on RKLLM runtime 1.3 and llama.cpp, fixed when the model loads on RKLLM 1.2).
 *
 * @param minP  min-p, 0 for none (llama.cpp only: {@link RuntimeInfo#takesMinPAndSeed()})
 * @param seed  the draw's seed, empty for a random one (llama.cpp only)
 * @param logitBias what to add to tokens' logits before sampling (llama.cpp only:
 *                  {@link RuntimeInfo#steersEachToken()})
 */
public record Sampling(int topK, double topP, double temperature, double repeatPenalty, double frequencyPenalty,
                       double presencePenalty, double minP, OptionalLong seed, List<TokenBias> logitBias) {

    public Sampling {
        Objects.requireNonNull(seed, "seed");
        logitBias = List.copyOf(logitBias);
    }

    /** Without logit biases. */
    public Sampling(int topK, double topP, double temperature, double repeatPenalty, double frequencyPenalty,
                    double presencePenalty, double minP, OptionalLong seed) {
        this(topK, topP, temperature, repeatPenalty, frequencyPenalty, presencePenalty, minP, seed, List.of());
    }

    /** Without min-p and seed: what the RKLLM runtime takes. */
    public Sampling(int topK, double topP, double temperature, double repeatPenalty, double frequencyPenalty,
                    double presencePenalty) {
        this(topK, topP, temperature, repeatPenalty, frequencyPenalty, presencePenalty, 0, OptionalLong.empty());
    }
}
