package io.rkllm.server.models;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One servable model: a model file plus everything the server knows about it (from its sidecar, its name, its family
 * profile, and what the engine that runs it made of its file: {@link ModelFacts}).
 *
 * @param id          the public id: lower case, {@code [a-z0-9._:-]}, unique within a discovery
 * @param displayName a human-readable name (sidecar {@code name}, else the folder or file name)
 * @param aliases     extra names from the sidecar (sanitised like ids; never another model's id)
 * @param family      the family whose profile applies, e.g. {@code qwen3}; {@code generic} if unknown
 * @param stored      its file and what a loaded copy of it takes
 * @param context     the context window it is served with, and where that came from
 * @param chat        how it chats: capabilities, sampling, templates, system prompt
 * @param vision      the image encoder and its settings, for a vision-language model
 * @param embedding   present for an embedding model (it cannot chat): how its vectors are made
 * @param facts       what the engine that runs it made of its file: which engine, the format, the header
 */
public record ModelDescriptor(String id, String displayName, List<String> aliases, String family, Stored stored,
                              Context context, Chat chat, Optional<VisionSpec> vision,
                              Optional<EmbeddingSettings> embedding, ModelFacts facts) {

    /** {@code contextLength} came from {@code model.yaml} (or a {@code model_config.json}). */
    public static final String SOURCE_SIDECAR = "sidecar";
    /** {@code contextLength} came from a {@code -4k} / {@code ctx4096} part of the folder or file name. */
    public static final String SOURCE_NAME = "name";
    /** {@code contextLength} is {@link #DEFAULT_CONTEXT_LENGTH}. */
    public static final String SOURCE_DEFAULT = "default";
    /** Context length used when neither a sidecar nor the name says anything. */
    public static final int DEFAULT_CONTEXT_LENGTH = 4096;

    /**
     * @param file      absolute path of the model file
     * @param sizeBytes file size (with the files that load with it: a split model's later parts)
     * @param modified  file modification time
     * @param memoryMb  what one loaded copy of the model takes, in MB, when the sidecar says ({@code memory_mb}); the
     *                  server estimates it from the file size otherwise
     */
    public record Stored(Path file, long sizeBytes, Instant modified, OptionalInt memoryMb) {
        public Stored {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(modified, "modified");
            Objects.requireNonNull(memoryMb, "memoryMb");
            if (sizeBytes < 0) {
                throw new IllegalArgumentException("sizeBytes must not be negative: " + sizeBytes);
            }
        }
    }

    /**
     * @param length context window to request from the runtime, in tokens
     * @param source where {@code length} came from: {@value #SOURCE_SIDECAR}, {@value #SOURCE_NAME} or
     *               {@value #SOURCE_DEFAULT} (for log lines)
     */
    public record Context(int length, String source) {
        public Context {
            Objects.requireNonNull(source, "source");
            if (length <= 0) {
                throw new IllegalArgumentException("contextLength must be positive: " + length);
            }
        }
    }

    /**
     * @param capabilities        thinking / tools, profile overridden by the sidecar field by field
     * @param sampling            sampling defaults (profile overridden by the sidecar field by field); in
     *                            thinking mode use {@link #samplingFor(boolean)}
     * @param thinkingSampling    overrides applied on top of {@code sampling} when thinking is on (may be empty)
     * @param chatTemplate        a chat template override for the runtime, if the sidecar sets one
     * @param defaultSystemPrompt a system prompt used when the request has none, if the sidecar sets one
     * @param thinkingStartsOpen  the chat template opens {@code <think>} itself, so the output starts inside the
     *                            reasoning block and only the closing tag appears
     * @param template            its own chat template, where it was found, and the dialect its sidecar names
     */
    public record Chat(Capabilities capabilities, SamplingDefaults sampling, SamplingDefaults thinkingSampling,
                       Optional<ChatTemplate> chatTemplate, Optional<String> defaultSystemPrompt,
                       boolean thinkingStartsOpen, TemplateSource template) {
        public Chat {
            Objects.requireNonNull(capabilities, "capabilities");
            Objects.requireNonNull(sampling, "sampling");
            Objects.requireNonNull(thinkingSampling, "thinkingSampling");
            Objects.requireNonNull(chatTemplate, "chatTemplate");
            Objects.requireNonNull(defaultSystemPrompt, "defaultSystemPrompt");
            Objects.requireNonNull(template, "template");
        }
    }

    public ModelDescriptor {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(displayName, "displayName");
        aliases = List.copyOf(aliases);
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(stored, "stored");
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(chat, "chat");
        Objects.requireNonNull(vision, "vision");
        Objects.requireNonNull(embedding, "embedding");
        Objects.requireNonNull(facts, "facts");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id must not be empty");
        }
    }

    public Path file() {
        return stored.file();
    }

    public long sizeBytes() {
        return stored.sizeBytes();
    }

    public Instant modified() {
        return stored.modified();
    }

    public OptionalInt memoryMb() {
        return stored.memoryMb();
    }

    public int contextLength() {
        return context.length();
    }

    public String source() {
        return context.source();
    }

    public Capabilities capabilities() {
        return chat.capabilities();
    }

    public SamplingDefaults sampling() {
        return chat.sampling();
    }

    public SamplingDefaults thinkingSampling() {
        return chat.thinkingSampling();
    }

    public Optional<ChatTemplate> chatTemplate() {
        return chat.chatTemplate();
    }

    public Optional<String> defaultSystemPrompt() {
        return chat.defaultSystemPrompt();
    }

    public boolean thinkingStartsOpen() {
        return chat.thinkingStartsOpen();
    }

    public TemplateSource template() {
        return chat.template();
    }

    public ModelKind kind() {
        return embedding.isPresent() ? ModelKind.EMBEDDING : ModelKind.CHAT;
    }

    public boolean isEmbedding() {
        return embedding.isPresent();
    }

    /** A reranker (a model whose header says it pools by rank): it scores documents against a query. */
    public boolean ranks() {
        return facts.header().map(ModelHeader::ranks).orElse(false);
    }

    /** The model reads pictures: it has an image encoder. */
    public boolean seesImages() {
        return vision.isPresent();
    }

    /** The same model with other aliases. */
    public ModelDescriptor withAliases(List<String> value) {
        return new ModelDescriptor(id, displayName, value, family, stored, context, chat, vision, embedding, facts);
    }

    /**
     * The sampling defaults for one request: {@code sampling}, with {@code thinkingSampling} laid over it
     * when the request runs with thinking on (and the model can think).
     */
    public SamplingDefaults samplingFor(boolean thinking) {
        return thinking && capabilities().thinking() ? sampling().overriddenBy(thinkingSampling()) : sampling();
    }
}
