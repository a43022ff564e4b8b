package io.rkllm.server.models;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The validated content of a {@code model.yaml} sidecar; every field is optional (absent = use the family
 * profile or the name).
 */
record Sidecar(Path path, Optional<String> name, OptionalInt contextLength, Optional<Boolean> thinking,
               Optional<Boolean> tools, Optional<Boolean> thinkingStartsOpen, SamplingDefaults sampling,
               SamplingDefaults thinkingSampling, Optional<ChatTemplate> chatTemplate,
               Optional<String> defaultSystemPrompt, List<String> aliases, Optional<String> family,
               OptionalInt memoryMb, Vision vision, Optional<ModelKind> kind, EmbeddingOverrides embedding,
               Optional<String> dialect) {

    Sidecar {
        aliases = List.copyOf(aliases);
    }

    /**
     * The {@code vision:} keys; every one optional.
     *
     * @param encoder the {@code .rknn} file, relative to the sidecar's folder
     * @param enabled false: a text model even with an encoder beside it
     */
    record Vision(Optional<String> encoder, Optional<Boolean> enabled, Optional<String> imageStart,
                  Optional<String> imageEnd, Optional<String> imageContent, OptionalInt imageWidth,
                  OptionalInt imageHeight, OptionalInt imageTokens, OptionalInt maxImages, OptionalInt baseDomainId) {

        static final Vision NONE = new Vision(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
                OptionalInt.empty());
    }

    /** No sidecar: nothing set. */
    static Sidecar none(Path path) {
        return new Sidecar(path, Optional.empty(), OptionalInt.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), SamplingDefaults.none(), SamplingDefaults.none(), Optional.empty(),
                Optional.empty(), List.of(), Optional.empty(), OptionalInt.empty(), Vision.NONE, Optional.empty(),
                EmbeddingOverrides.none(), Optional.empty());
    }
}
