package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.SamplingParams;
import io.rkllm.server.engine.contract.Sampling;
import java.util.Optional;

/** The engine's sampling settings as llama.cpp's sampler chain takes them. */
final class LlamaSampling {
    /** llama.cpp draws a seed of its own for this one. */
    private static final long RANDOM_SEED = 0xFFFFFFFFL;

    private LlamaSampling() {
    }

    /**
     * A run's sampler settings; greedy when the temperature is 0 (or less).
     *
     * @throws TokenBiases.Refused for a logit bias of a token the model does not have
     */
    static SamplingParams of(Sampling s, LlamaModel model, int contextLength) {
        // -1 is the whole context (Ollama's and llama-server's), which llama.cpp's sampler takes as a count
        int lastN = s.penalties().lastN() < 0 ? contextLength : s.penalties().lastN();
        return new SamplingParams((float) s.temperature(), Math.max(0, s.topK()), (float) clamp(s.topP(), 0, 1),
                (float) clamp(s.minP(), 0, 1), (float) clamp(s.typicalP(), 0, 1), new SamplingParams.Penalties(
                        (float) (s.repeatPenalty() <= 0 ? 1 : s.repeatPenalty()), (float) s.frequencyPenalty(),
                        (float) s.presencePenalty(), lastN),
                s.seed().orElse(RANDOM_SEED) & 0xFFFFFFFFL, Optional.empty(), TokenBiases.of(s.logitBias(), model));
    }

    private static double clamp(double value, double min, double max) {
        return Math.max(min, Math.min(max, value));
    }
}
