package io.rkllm.server.models;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The validated content of a {@code model.yaml} sidecar; every field is optional (absent = use the family
 * profile or the name).
 *
 * @param chat how the model chats: its capabilities, sampling, template, system prompt, dialect
 */
record Sidecar(Path path, Optional<String> name, Optional<String> family, List<String> aliases,
               Optional<ModelKind> kind, OptionalInt contextLength, OptionalInt memoryMb, Chat chat, Vision vision,
               EmbeddingOverrides embedding) {

    Sidecar {
        aliases = List.copyOf(aliases);
    }

    /** The keys of how the model chats; every one optional. */
    record Chat(Optional<Boolean> thinking, Optional<Boolean> tools, Optional<Boolean> thinkingStartsOpen,
                SamplingDefaults sampling, SamplingDefaults thinkingSampling, Optional<ChatTemplate> chatTemplate,
                Optional<String> defaultSystemPrompt, Optional<String> dialect) {
    }

    Optional<Boolean> thinking() {
        return chat.thinking();
    }

    Optional<Boolean> tools() {
        return chat.tools();
    }

    Optional<Boolean> thinkingStartsOpen() {
        return chat.thinkingStartsOpen();
    }

    SamplingDefaults sampling() {
        return chat.sampling();
    }

    SamplingDefaults thinkingSampling() {
        return chat.thinkingSampling();
    }

    Optional<ChatTemplate> chatTemplate() {
        return chat.chatTemplate();
    }

    Optional<String> defaultSystemPrompt() {
        return chat.defaultSystemPrompt();
    }

    Optional<String> dialect() {
        return chat.dialect();
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
        return new Sidecar(path, Optional.empty(), Optional.empty(), List.of(), Optional.empty(), OptionalInt.empty(),
                OptionalInt.empty(), new Chat(Optional.empty(), Optional.empty(), Optional.empty(),
                SamplingDefaults.none(), SamplingDefaults.none(), Optional.empty(), Optional.empty(), Optional.empty()),
                Vision.NONE, EmbeddingOverrides.none());
    }
}
