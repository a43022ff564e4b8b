package io.rkllm.llama;

import java.util.Optional;

/**
 * A sampler chain's settings. With {@code temperature <= 0} the chain is greedy (the most likely token, no
 * randomness); otherwise penalties, top-k, top-p, min-p, temperature, then a draw seeded by {@code seed}, in
 * llama.cpp's usual order.
 *
 * @param topK           0 disables
 * @param topP           1 disables
 * @param minP           0 disables
 * @param repeatPenalty  1 disables; with {@code frequencyPenalty} and {@code presencePenalty} (0 disable) over the
 *                       last {@code penaltyLastN} tokens
 * @param seed           the draw's seed (its low 32 bits); 0xFFFFFFFF asks llama.cpp for a random one
 * @param grammar        a GBNF grammar (root rule {@code root}) the output must follow
 */
public record SamplingParams(float temperature, int topK, float topP, float minP, float repeatPenalty,
                             float frequencyPenalty, float presencePenalty, int penaltyLastN, long seed,
                             Optional<String> grammar) {

    public static SamplingParams greedy() {
        return new SamplingParams(0f, 0, 1f, 0f, 1f, 0f, 0f, 64, 0, Optional.empty());
    }

    public static SamplingParams random(float temperature, long seed) {
        return new SamplingParams(temperature, 40, 0.95f, 0.05f, 1f, 0f, 0f, 64, seed, Optional.empty());
    }

    public boolean isGreedy() {
        return temperature <= 0;
    }

    public boolean penalises() {
        return repeatPenalty != 1f || frequencyPenalty != 0f || presencePenalty != 0f;
    }

    public SamplingParams withPenalties(float repeat, float frequency, float presence, int lastN) {
        return new SamplingParams(temperature, topK, topP, minP, repeat, frequency, presence, lastN, seed, grammar);
    }

    public SamplingParams withGrammar(String value) {
        return new SamplingParams(temperature, topK, topP, minP, repeatPenalty, frequencyPenalty, presencePenalty,
                penaltyLastN, seed, Optional.of(value));
    }
}
