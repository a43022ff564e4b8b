package io.rkllm.server.models;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The family profile table: recognises a model family from its folder and file name and supplies its
 * capabilities and sampling defaults. Profiles are tried in table order and the first match wins, so
 * more specific profiles come first ({@code DeepSeek-R1-Distill-Qwen} is R1, not Qwen; the non-thinking
 * {@code Qwen3-*-Instruct-2507} and thinking-only {@code Qwen3-*-Thinking-2507} before hybrid Qwen3). Immutable.
 */
public final class FamilyProfiles {

    /**
     * Qwen3-Embedding's reference recipe (its model card and sentence-transformers configuration): the text
     * followed by {@code <|endoftext|>}, no chat template, the last token's row, L2-normalised; queries get a
     * one-line task instruction, documents nothing; trained for shortened vectors (MRL) and 32k-token inputs.
     */
    static final EmbeddingSettings QWEN3_EMBEDDING = new EmbeddingSettings(EmbeddingSettings.Pooling.LAST, true,
            EmbeddingSettings.Framing.RAW, "<|endoftext|>",
            "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: ", "", 0,
            true, 32_768);

    /** Family of models that match no profile. */
    public static final String GENERIC = "generic";

    private final List<FamilyProfile> profiles;
    private final FamilyProfile generic;

    /**
     * @param profiles tried in order
     * @param generic  used when none matches
     */
    public FamilyProfiles(List<FamilyProfile> profiles, FamilyProfile generic) {
        this.profiles = List.copyOf(profiles);
        this.generic = Objects.requireNonNull(generic, "generic");
        Set<String> names = new HashSet<>();
        for (FamilyProfile p : this.profiles) {
            if (!names.add(p.name())) {
                throw new IllegalArgumentException("duplicate profile name " + p.name());
            }
        }
        if (names.contains(generic.name())) {
            throw new IllegalArgumentException("duplicate profile name " + generic.name());
        }
    }

    /** The built-in table (see docs/models.md). */
    public static FamilyProfiles builtIn() {
        SamplingDefaults qwen3NonThinking = SamplingDefaults.of(0.7, 0.8, 20, 1.1, 0.0, 1.5);
        SamplingDefaults qwen3Thinking = SamplingDefaults.of(0.6, 0.95, 20, 1.1, 0.0, 0.0);
        SamplingDefaults qwen2 = SamplingDefaults.of(0.7, 0.8, 20, 1.05, 0.0, 0.0);
        List<FamilyProfile> table = List.of(
                // before every Qwen3 chat profile: "Qwen3-Embedding-0.6B" names a Qwen3 too
                new FamilyProfile("qwen3-embedding", "qwen3", Pattern.compile("qwen[-_. ]?3(?!\\d).*embed"),
                        Capabilities.none(), false, SamplingDefaults.none(), SamplingDefaults.none(),
                        Optional.of(QWEN3_EMBEDDING)),
                profile("deepseek-r1", "deepseek-r1", "deepseek[-_. ]?r1|r1[-_. ]?distill",
                        new Capabilities(true, false), true, SamplingDefaults.of(0.6, 0.95, 40, 1.1, 0.0, 0.0)),
                // before Qwen3: "Qwen3.5" and "Qwen3-Coder" name a Qwen3 too
                profile("qwen3.5", "qwen3.5", "qwen[-_. ]?3[._]5",
                        new Capabilities(true, true), true, qwen3Thinking),
                profile("qwen3-coder", "qwen3-coder", "qwen[-_. ]?3[-_. ]?coder",
                        new Capabilities(false, true), false, SamplingDefaults.of(0.7, 0.8, 20, 1.05, 0.0, 0.0)),
                profile("gpt-oss", "gpt-oss", "gpt[-_. ]?oss",
                        new Capabilities(true, true), false, SamplingDefaults.of(1.0, 1.0, 40, 1.0, 0.0, 0.0)),
                profile("qwen3-thinking", "qwen3", "qwen[-_. ]?3(?!\\d).*thinking",
                        new Capabilities(true, true), true, qwen3Thinking),
                profile("qwen3-instruct", "qwen3", "qwen[-_. ]?3(?!\\d).*(instruct.*2507|2507.*instruct)",
                        new Capabilities(false, true), false, qwen3NonThinking),
                // Qwen3-VL instruct models do not think (the thinking ones matched above)
                profile("qwen3-vl", "qwen3-vl", "qwen[-_. ]?3[-_. ]?vl",
                        new Capabilities(false, true), false, qwen3NonThinking),
                new FamilyProfile("qwen3", "qwen3", Pattern.compile("qwen[-_. ]?3(?!\\d)"),
                        new Capabilities(true, true), false, qwen3NonThinking,
                        SamplingDefaults.none().withTemperature(0.6).withTopP(0.95).withPresencePenalty(0.0)),
                profile("qwen2.5", "qwen2.5", "qwen[-_. ]?2[._]5",
                        new Capabilities(false, true), false, qwen2),
                profile("qwen", "qwen", "qwen",
                        Capabilities.none(), false, qwen2),
                profile("llama", "llama", "llama",
                        Capabilities.none(), false, SamplingDefaults.of(0.6, 0.9, 40, 1.1, 0.0, 0.0)),
                profile("gemma", "gemma", "gemma",
                        Capabilities.none(), false, SamplingDefaults.of(1.0, 0.95, 64, 1.0, 0.0, 0.0)),
                profile("phi", "phi", "(?<![a-z])phi[-_. ]?\\d",
                        Capabilities.none(), false, SamplingDefaults.of(0.7, 0.9, 40, 1.1, 0.0, 0.0)),
                profile("minicpm", "minicpm", "minicpm",
                        Capabilities.none(), false, SamplingDefaults.of(0.7, 0.8, 40, 1.05, 0.0, 0.0)),
                profile("internlm", "internlm", "internlm",
                        Capabilities.none(), false, SamplingDefaults.of(0.8, 0.8, 40, 1.02, 0.0, 0.0)),
                profile("chatglm", "chatglm", "chatglm|(?<![a-z])glm[-_. ]?4",
                        Capabilities.none(), false, SamplingDefaults.of(0.8, 0.8, 40, 1.1, 0.0, 0.0)));
        FamilyProfile generic = profile(GENERIC, GENERIC, "(?!)",
                Capabilities.none(), false, SamplingDefaults.of(0.7, 0.9, 40, 1.1, 0.0, 0.0));
        return new FamilyProfiles(table, generic);
    }

    private static FamilyProfile profile(String name, String family, String regex, Capabilities capabilities,
                                         boolean thinkingStartsOpen, SamplingDefaults sampling) {
        return new FamilyProfile(name, family, Pattern.compile(regex), capabilities, thinkingStartsOpen, sampling,
                SamplingDefaults.none());
    }

    /**
     * The first profile matching any of the names (folder name, file name), else the generic one.
     */
    public FamilyProfile detect(String... names) {
        String joined = String.join(" ", names);
        for (FamilyProfile p : profiles) {
            if (p.matches(joined)) {
                return p;
            }
        }
        return generic;
    }

    /**
     * A profile by profile name ({@code qwen3-instruct}), else the first profile of that family
     * ({@code qwen3}); case-insensitive. {@code generic} finds the generic profile.
     */
    public Optional<FamilyProfile> byName(String nameOrFamily) {
        String key = nameOrFamily.trim().toLowerCase(Locale.ROOT);
        if (generic.name().equals(key)) {
            return Optional.of(generic);
        }
        return profiles.stream().filter(p -> p.name().equals(key)).findFirst()
                .or(() -> profiles.stream().filter(p -> p.family().equals(key)).findFirst());
    }

    /** The table, in matching order, without the generic profile. */
    public List<FamilyProfile> all() {
        return profiles;
    }

    public FamilyProfile generic() {
        return generic;
    }
}
