package io.rkllm.server.engine.contract;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Sampling settings of a run (per run on RKLLM runtime 1.3 and llama.cpp, fixed when the model loads on RKLLM 1.2).
 *
 * @param minP  min-p, 0 for none (llama.cpp only: {@link RuntimeInfo#takesMinPAndSeed()})
 * @param typicalP locally typical sampling's mass, 1 for none (llama.cpp only)
 * @param seed  the draw's seed, empty for a random one (llama.cpp only)
 * @param logitBias what to add to tokens' logits before sampling (llama.cpp only:
 *                  {@link RuntimeInfo#steersEachToken()})
 */
public record Sampling(int topK, double topP, double temperature, Penalties penalties, double minP, double typicalP,
                       OptionalLong seed, List<TokenBias> logitBias) {

    /** How many tokens the repetition penalties look back over when nothing says (llama-server's and Ollama's). */
    public static final int DEFAULT_LAST_N = 64;

    /**
     * The repetition penalties.
     *
     * @param lastN the tokens they look back over: 0 for none, -1 for the whole context (llama.cpp only)
     */
    public record Penalties(double repeat, double frequency, double presence, int lastN) {
    }

    public Sampling {
        Objects.requireNonNull(penalties, "penalties");
        Objects.requireNonNull(seed, "seed");
        logitBias = List.copyOf(logitBias);
    }

    /** Penalties over the last {@link #DEFAULT_LAST_N} tokens, no typical-p. */
    public Sampling(int topK, double topP, double temperature, double repeatPenalty, double frequencyPenalty,
                    double presencePenalty, double minP, OptionalLong seed, List<TokenBias> logitBias) {
        this(topK, topP, temperature, new Penalties(repeatPenalty, frequencyPenalty, presencePenalty, DEFAULT_LAST_N),
                minP, 1, seed, logitBias);
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

    public double repeatPenalty() {
        return penalties.repeat();
    }

    public double frequencyPenalty() {
        return penalties.frequency();
    }

    public double presencePenalty() {
        return penalties.presence();
    }
}
