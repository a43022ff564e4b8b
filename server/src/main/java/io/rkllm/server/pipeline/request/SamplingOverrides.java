package io.rkllm.server.pipeline.request;

import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Sampling a request asked for; empty fields keep the model's defaults.
 *
 * @param logitBias OpenAI's {@code logit_bias}, none when empty
 */
public record SamplingOverrides(OptionalDouble temperature, OptionalDouble topP, OptionalInt topK,
                                OptionalDouble repeatPenalty, OptionalDouble presencePenalty,
                                OptionalDouble frequencyPenalty, OptionalDouble minP, OptionalLong seed,
                                List<LogitBiasEntry> logitBias) {

    public static final SamplingOverrides NONE = new SamplingOverrides(OptionalDouble.empty(), OptionalDouble.empty(),
            OptionalInt.empty(), OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(),
            OptionalDouble.empty(), OptionalLong.empty());

    public SamplingOverrides {
        logitBias = List.copyOf(logitBias);
    }

    /** Without logit biases (what every API but OpenAI's chat and completions asks for). */
    public SamplingOverrides(OptionalDouble temperature, OptionalDouble topP, OptionalInt topK,
                             OptionalDouble repeatPenalty, OptionalDouble presencePenalty,
                             OptionalDouble frequencyPenalty, OptionalDouble minP, OptionalLong seed) {
        this(temperature, topP, topK, repeatPenalty, presencePenalty, frequencyPenalty, minP, seed, List.of());
    }

    public SamplingOverrides withLogitBias(List<LogitBiasEntry> value) {
        return new SamplingOverrides(temperature, topP, topK, repeatPenalty, presencePenalty, frequencyPenalty, minP,
                seed, value);
    }

    public boolean isEmpty() {
        return temperature.isEmpty() && topP.isEmpty() && topK.isEmpty() && repeatPenalty.isEmpty()
                && presencePenalty.isEmpty() && frequencyPenalty.isEmpty() && minP.isEmpty() && seed.isEmpty()
                && logitBias.isEmpty();
    }
}
