package io.rkllm.server.models;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Defaults for a model family, used when a model has no sidecar (and for every key its sidecar leaves out).
 *
 * @param name               profile name, e.g. {@code qwen3-instruct}; unique in a {@link FamilyProfiles} table
 * @param family             family reported in {@link ModelDescriptor#family()}, e.g. {@code qwen3}
 * @param match              matched (with {@code find}) against the lower-cased folder and file name
 * @param capabilities       thinking / tools
 * @param thinkingStartsOpen the family's chat template opens {@code <think>} itself
 * @param sampling           sampling defaults
 * @param thinkingSampling   overrides of {@code sampling} for requests that run with thinking on
 * @param embedding          present for a family of embedding models: how their vectors are made
 */
public record FamilyProfile(String name, String family, Pattern match, Capabilities capabilities,
                            boolean thinkingStartsOpen, SamplingDefaults sampling,
                            SamplingDefaults thinkingSampling, Optional<EmbeddingSettings> embedding) {

    public FamilyProfile {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(capabilities, "capabilities");
        Objects.requireNonNull(sampling, "sampling");
        Objects.requireNonNull(thinkingSampling, "thinkingSampling");
        Objects.requireNonNull(embedding, "embedding");
    }

    /** A family of chat models. */
    public FamilyProfile(String name, String family, Pattern match, Capabilities capabilities,
                         boolean thinkingStartsOpen, SamplingDefaults sampling, SamplingDefaults thinkingSampling) {
        this(name, family, match, capabilities, thinkingStartsOpen, sampling, thinkingSampling, Optional.empty());
    }

    /** True when the pattern occurs in the lower-cased name. */
    public boolean matches(String name) {
        return match.matcher(name.toLowerCase(Locale.ROOT)).find();
    }
}
