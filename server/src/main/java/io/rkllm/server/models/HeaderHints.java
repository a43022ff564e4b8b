package io.rkllm.server.models;

import java.util.Locale;

/**
 * What a model file's header adds to its family profile: an embedding model's pooling and width, and a chat model's
 * capabilities where no profile knows its family (its own template says whether it takes tools and thinks).
 */
final class HeaderHints {
    private HeaderHints() {
    }

    /** The profile's embedding settings with the file's pooling and width. */
    static EmbeddingSettings settings(EmbeddingSettings base, ModelHeader facts) {
        EmbeddingSettings.Pooling pooling = facts.pooling().flatMap(EmbeddingSettings.Pooling::parse)
                .orElse(base.pooling());
        int dimensions = base.dimensions() > 0 ? base.dimensions() : facts.embeddingLength();
        return new EmbeddingSettings(pooling, pooling != EmbeddingSettings.Pooling.RANK && base.normalize(),
                base.framing(), base.endOfText(), base.queryPrefix(), base.documentPrefix(), dimensions,
                base.matryoshka(), base.maxInputTokens());
    }

    /**
     * A known family's capabilities; for an unknown one, what its chat template shows: tools when it renders a
     * {@code tools} list, thinking when it writes {@code <think>}.
     */
    static Capabilities capabilities(FamilyProfile profile, ModelHeader facts) {
        if (!profile.family().equals(FamilyProfiles.GENERIC) || facts.chatTemplate().isEmpty()) {
            return profile.capabilities();
        }
        String template = facts.chatTemplate().get().toLowerCase(Locale.ROOT);
        return new Capabilities(template.contains("<think>"), template.contains("tools"));
    }
}
