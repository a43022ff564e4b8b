package io.rkllm.server.models;


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
     * What the model's own chat template shows, where it has one: tools when it renders a {@code tools} list (a
     * family known to take none may have a template that does: the template is what the model was tuned with);
     * thinking as a known family does, else when the template writes a family's reasoning markers or takes a
     * thinking switch; the family's capabilities where there is no template.
     */
    static Capabilities capabilities(FamilyProfile profile, TemplateSource template) {
        if (template.jinja().isEmpty()) {
            return profile.capabilities();
        }
        boolean known = !profile.family().equals(FamilyProfiles.GENERIC);
        return new Capabilities(known ? profile.capabilities().thinking() : template.writesReasoning(),
                template.rendersTools());
    }
}
