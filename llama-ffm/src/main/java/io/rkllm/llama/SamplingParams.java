package io.rkllm.llama;

import java.util.List;
import java.util.Optional;

/**
 * A sampler chain's settings. With {@code temperature <= 0} the chain is greedy (the most likely token, no
 * randomness); otherwise penalties, top-k, typical-p, top-p, min-p, temperature, then a draw seeded by {@code seed},
 * in llama.cpp's usual order.
 *
 * @param topK           0 disables
 * @param topP           1 disables
 * @param minP           0 disables
 * @param typicalP       locally typical sampling's mass, 1 disables
 * @param penalties      the repetition penalties
 * @param seed           the draw's seed (its low 32 bits); 0xFFFFFFFF asks llama.cpp for a random one
 * @param grammar        a GBNF grammar (root rule {@code root}) the output must follow
 * @param logitBias      numbers added to tokens' logits before anything else samples (llama.cpp's common sampler
 *                       puts them first too)
 */
public record SamplingParams(float temperature, int topK, float topP, float minP, float typicalP, Penalties penalties,
                             long seed, Optional<String> grammar, List<LogitBias> logitBias) {

    /**
     * The repetition penalties over the last {@code lastN} tokens.
     *
     * @param repeat    1 disables
     * @param frequency 0 disables
     * @param presence  0 disables
     */
    public record Penalties(float repeat, float frequency, float presence, int lastN) {
        public static final Penalties NONE = new Penalties(1f, 0f, 0f, 64);
    }

    public SamplingParams {
        logitBias = List.copyOf(logitBias);
    }

    /** Without typical-p. */
    public SamplingParams(float temperature, int topK, float topP, float minP, Penalties penalties, long seed,
                          Optional<String> grammar, List<LogitBias> logitBias) {
        this(temperature, topK, topP, minP, 1f, penalties, seed, grammar, logitBias);
    }

    public static SamplingParams greedy() {
        return new SamplingParams(0f, 0, 1f, 0f, Penalties.NONE, 0, Optional.empty(), List.of());
    }

    public static SamplingParams random(float temperature, long seed) {
        return new SamplingParams(temperature, 40, 0.95f, 0.05f, Penalties.NONE, seed, Optional.empty(), List.of());
    }

    public float repeatPenalty() {
        return penalties.repeat();
    }

    public float frequencyPenalty() {
        return penalties.frequency();
    }

    public float presencePenalty() {
        return penalties.presence();
    }

    public int penaltyLastN() {
        return penalties.lastN();
    }

    public boolean isGreedy() {
        return temperature <= 0;
    }

    public boolean penalises() {
        return penalties.repeat() != 1f || penalties.frequency() != 0f || penalties.presence() != 0f;
    }

    public SamplingParams withPenalties(float repeat, float frequency, float presence, int lastN) {
        return new SamplingParams(temperature, topK, topP, minP, typicalP,
                new Penalties(repeat, frequency, presence, lastN), seed, grammar, logitBias);
    }

    public SamplingParams withGrammar(String value) {
        return new SamplingParams(temperature, topK, topP, minP, typicalP, penalties, seed, Optional.of(value),
                logitBias);
    }

    public SamplingParams withLogitBias(List<LogitBias> value) {
        return new SamplingParams(temperature, topK, topP, minP, typicalP, penalties, seed, grammar, value);
    }
}
