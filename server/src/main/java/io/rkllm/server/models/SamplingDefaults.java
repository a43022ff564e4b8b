package io.rkllm.server.models;

import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Per-model sampling defaults. Every field is optional: an empty field means "not set here", so that
 * layers can be stacked with {@link #overriddenBy(SamplingDefaults)} (family profile, then sidecar, then
 * the request itself, which the caller applies).
 *
 * <p>The built-in family profiles set all six sampling values; {@code maxTokens} is only set by a sidecar
 * (absent means "until the context is full or the request's own limit"), {@code stop} too (the stop strings of a
 * request that sends none: an Ollama model's parameters).
 */
public record SamplingDefaults(OptionalDouble temperature, OptionalDouble topP, OptionalInt topK,
                               OptionalDouble repeatPenalty, OptionalDouble frequencyPenalty,
                               OptionalDouble presencePenalty, OptionalInt maxTokens, List<String> stop) {

    /** Without stop strings. */
    public SamplingDefaults(OptionalDouble temperature, OptionalDouble topP, OptionalInt topK,
                            OptionalDouble repeatPenalty, OptionalDouble frequencyPenalty,
                            OptionalDouble presencePenalty, OptionalInt maxTokens) {
        this(temperature, topP, topK, repeatPenalty, frequencyPenalty, presencePenalty, maxTokens, List.of());
    }

    public SamplingDefaults {
        stop = List.copyOf(stop);
        Objects.requireNonNull(temperature, "temperature");
        Objects.requireNonNull(topP, "topP");
        Objects.requireNonNull(topK, "topK");
        Objects.requireNonNull(repeatPenalty, "repeatPenalty");
        Objects.requireNonNull(frequencyPenalty, "frequencyPenalty");
        Objects.requireNonNull(presencePenalty, "presencePenalty");
        Objects.requireNonNull(maxTokens, "maxTokens");
    }

    /** Nothing set. */
    public static SamplingDefaults none() {
        return new SamplingDefaults(OptionalDouble.empty(), OptionalDouble.empty(), OptionalInt.empty(),
                OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(), OptionalInt.empty());
    }

    /** All six sampling values set, {@code maxTokens} unset. */
    public static SamplingDefaults of(double temperature, double topP, int topK, double repeatPenalty,
                                      double frequencyPenalty, double presencePenalty) {
        return new SamplingDefaults(OptionalDouble.of(temperature), OptionalDouble.of(topP), OptionalInt.of(topK),
                OptionalDouble.of(repeatPenalty), OptionalDouble.of(frequencyPenalty),
                OptionalDouble.of(presencePenalty), OptionalInt.empty());
    }

    /** True when no field is set. */
    public boolean isEmpty() {
        return temperature.isEmpty() && topP.isEmpty() && topK.isEmpty() && repeatPenalty.isEmpty()
                && frequencyPenalty.isEmpty() && presencePenalty.isEmpty() && maxTokens.isEmpty() && stop.isEmpty();
    }

    /** Field by field: a value set in {@code other} wins, otherwise this one's value is kept. */
    public SamplingDefaults overriddenBy(SamplingDefaults other) {
        return new SamplingDefaults(
                pick(other.temperature, temperature),
                pick(other.topP, topP),
                other.topK.isPresent() ? other.topK : topK,
                pick(other.repeatPenalty, repeatPenalty),
                pick(other.frequencyPenalty, frequencyPenalty),
                pick(other.presencePenalty, presencePenalty),
                other.maxTokens.isPresent() ? other.maxTokens : maxTokens,
                other.stop.isEmpty() ? stop : other.stop);
    }

    /** The same with the stop strings a request without its own gets (an Ollama model's parameters). */
    public SamplingDefaults withStop(List<String> value) {
        return new SamplingDefaults(temperature, topP, topK, repeatPenalty, frequencyPenalty, presencePenalty,
                maxTokens, value);
    }

    private static OptionalDouble pick(OptionalDouble preferred, OptionalDouble fallback) {
        return preferred.isPresent() ? preferred : fallback;
    }

    public SamplingDefaults withTemperature(double value) {
        return new SamplingDefaults(OptionalDouble.of(value), topP, topK, repeatPenalty, frequencyPenalty,
                presencePenalty, maxTokens, stop);
    }

    public SamplingDefaults withTopP(double value) {
        return new SamplingDefaults(temperature, OptionalDouble.of(value), topK, repeatPenalty, frequencyPenalty,
                presencePenalty, maxTokens, stop);
    }

    public SamplingDefaults withTopK(int value) {
        return new SamplingDefaults(temperature, topP, OptionalInt.of(value), repeatPenalty, frequencyPenalty,
                presencePenalty, maxTokens, stop);
    }

    public SamplingDefaults withRepeatPenalty(double value) {
        return new SamplingDefaults(temperature, topP, topK, OptionalDouble.of(value), frequencyPenalty,
                presencePenalty, maxTokens, stop);
    }

    public SamplingDefaults withFrequencyPenalty(double value) {
        return new SamplingDefaults(temperature, topP, topK, repeatPenalty, OptionalDouble.of(value),
                presencePenalty, maxTokens, stop);
    }

    public SamplingDefaults withPresencePenalty(double value) {
        return new SamplingDefaults(temperature, topP, topK, repeatPenalty, frequencyPenalty,
                OptionalDouble.of(value), maxTokens, stop);
    }

    public SamplingDefaults withMaxTokens(int value) {
        return new SamplingDefaults(temperature, topP, topK, repeatPenalty, frequencyPenalty, presencePenalty,
                OptionalInt.of(value), stop);
    }
}
