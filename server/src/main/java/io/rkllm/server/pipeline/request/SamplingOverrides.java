package io.rkllm.server.pipeline.request;

import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** Sampling a request asked for; empty fields keep the model's defaults. */
public record SamplingOverrides(OptionalDouble temperature, OptionalDouble topP, OptionalInt topK,
                                OptionalDouble repeatPenalty, OptionalDouble presencePenalty,
                                OptionalDouble frequencyPenalty, OptionalDouble minP, OptionalLong seed) {

    public static final SamplingOverrides NONE = new SamplingOverrides(OptionalDouble.empty(), OptionalDouble.empty(),
            OptionalInt.empty(), OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(),
            OptionalDouble.empty(), OptionalLong.empty());

    public boolean isEmpty() {
        return temperature.isEmpty() && topP.isEmpty() && topK.isEmpty() && repeatPenalty.isEmpty()
                && presencePenalty.isEmpty() && frequencyPenalty.isEmpty() && minP.isEmpty() && seed.isEmpty();
    }
}
