package io.rkllm.server.models;

import java.util.Optional;
import java.util.OptionalInt;

/** The {@code embedding:} keys of a sidecar, each optional: laid over the family's settings field by field. */
record EmbeddingOverrides(Optional<EmbeddingSettings.Pooling> pooling, Optional<Boolean> normalize,
                          Optional<EmbeddingSettings.Framing> framing, Optional<String> endOfText,
                          Optional<String> queryPrefix, Optional<String> documentPrefix, OptionalInt dimensions,
                          Optional<Boolean> matryoshka, OptionalInt maxInputTokens) {

    static EmbeddingOverrides none() {
        return new EmbeddingOverrides(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), OptionalInt.empty(), Optional.empty(), OptionalInt.empty());
    }

    boolean isEmpty() {
        return equals(none());
    }

    EmbeddingSettings applyTo(EmbeddingSettings base) {
        return new EmbeddingSettings(pooling.orElse(base.pooling()), normalize.orElse(base.normalize()),
                framing.orElse(base.framing()), endOfText.orElse(base.endOfText()),
                queryPrefix.orElse(base.queryPrefix()), documentPrefix.orElse(base.documentPrefix()),
                dimensions.orElse(base.dimensions()), matryoshka.orElse(base.matryoshka()),
                maxInputTokens.orElse(base.maxInputTokens()));
    }
}
