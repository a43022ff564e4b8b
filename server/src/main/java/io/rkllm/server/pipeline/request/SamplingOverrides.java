package io.rkllm.server.pipeline.request;

import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Sampling a request asked for; empty fields keep the model's defaults.
 *
 * @param typicalP  llama-server's and Ollama's {@code typical_p}
 * @param logitBias OpenAI's {@code logit_bias}, none when empty
 */
public record SamplingOverrides(OptionalDouble temperature, OptionalDouble topP, OptionalInt topK,
                                PenaltyOverrides penalties, OptionalDouble minP, OptionalDouble typicalP,
                                OptionalLong seed, List<LogitBiasEntry> logitBias) {

    public static final SamplingOverrides NONE = new SamplingOverrides(OptionalDouble.empty(), OptionalDouble.empty(),
            OptionalInt.empty(), OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(),
            OptionalDouble.empty(), OptionalLong.empty());

    /**
     * The repetition penalties asked for.
     *
     * @param lastN {@code repeat_last_n}: the tokens they look back over (0 none, -1 the whole context)
     */
    public record PenaltyOverrides(OptionalDouble repeat, OptionalDouble presence, OptionalDouble frequency,
                                   OptionalInt lastN) {
        boolean isEmpty() {
            return repeat.isEmpty() && presence.isEmpty() && frequency.isEmpty() && lastN.isEmpty();
        }
    }

    public SamplingOverrides {
        logitBias = List.copyOf(logitBias);
    }

    public SamplingOverrides(OptionalDouble temperature, OptionalDouble topP, OptionalInt topK,
                             OptionalDouble repeatPenalty, OptionalDouble presencePenalty,
                             OptionalDouble frequencyPenalty, OptionalDouble minP, OptionalLong seed,
                             List<LogitBiasEntry> logitBias) {
        this(temperature, topP, topK, new PenaltyOverrides(repeatPenalty, presencePenalty, frequencyPenalty,
                OptionalInt.empty()), minP, OptionalDouble.empty(), seed, logitBias);
    }

    /** Without logit biases (what every API but OpenAI's chat and completions asks for). */
    public SamplingOverrides(OptionalDouble temperature, OptionalDouble topP, OptionalInt topK,
                             OptionalDouble repeatPenalty, OptionalDouble presencePenalty,
                             OptionalDouble frequencyPenalty, OptionalDouble minP, OptionalLong seed) {
        this(temperature, topP, topK, repeatPenalty, presencePenalty, frequencyPenalty, minP, seed, List.of());
    }

    public OptionalDouble repeatPenalty() {
        return penalties.repeat();
    }

    public OptionalDouble presencePenalty() {
        return penalties.presence();
    }

    public OptionalDouble frequencyPenalty() {
        return penalties.frequency();
    }

    public OptionalInt repeatLastN() {
        return penalties.lastN();
    }

    public SamplingOverrides withLogitBias(List<LogitBiasEntry> value) {
        return new SamplingOverrides(temperature, topP, topK, penalties, minP, typicalP, seed, value);
    }

    /** With llama-server's and Ollama's {@code repeat_last_n} and {@code typical_p}. */
    public SamplingOverrides withTail(OptionalInt repeatLastN, OptionalDouble typical) {
        return new SamplingOverrides(temperature, topP, topK, new PenaltyOverrides(penalties.repeat(),
                penalties.presence(), penalties.frequency(), repeatLastN), minP, typical, seed, logitBias);
    }

    public boolean isEmpty() {
        return temperature.isEmpty() && topP.isEmpty() && topK.isEmpty() && penalties.isEmpty() && minP.isEmpty()
                && typicalP.isEmpty() && seed.isEmpty() && logitBias.isEmpty();
    }
}
