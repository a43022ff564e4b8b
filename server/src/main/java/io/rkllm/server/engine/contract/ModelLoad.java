package io.rkllm.server.engine.contract;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What the engine needs to load a model: its id, the engine that runs it (by name: the registry finds its backend by
 * it), its file, its context length, the sampling fixed at init (the only sampling on runtime 1.2), how many slots
 * (handles, each with its own KV cache) to create, the memory one handle takes, in MB (stated or estimated by the
 * layer above; the registry's {@code models.max_memory} and its memory check before a load both count it), how many
 * requests may wait for it (0 = the registry's default), and for a vision model its image encoder; its family names
 * it in messages; whether it is an embedding model (a backend that needs another kind of context for one, llama.cpp,
 * makes it when it loads); the chat template that replaces the one the file carries (a {@code chat_template.jinja}
 * beside it, as llama-server's {@code --chat-template-file}), if there is one.
 */
public record ModelLoad(String id, String engine, Path file, int contextLength, Sampling sampling, int slots,
                        long memoryMb, int maxQueued, Optional<VisionLoad> vision, String family, boolean embedding,
                        Optional<String> chatTemplate) {

    public ModelLoad {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(vision, "vision");
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(chatTemplate, "chatTemplate");
    }

    /** A model that keeps the template its file carries. */
    public ModelLoad(String id, String engine, Path file, int contextLength, Sampling sampling, int slots,
                     long memoryMb, int maxQueued, Optional<VisionLoad> vision, String family, boolean embedding) {
        this(id, engine, file, contextLength, sampling, slots, memoryMb, maxQueued, vision, family, embedding,
                Optional.empty());
    }

    /** The memory of all its slots and its encoder. */
    public long totalMemoryMb() {
        return memoryMb * slots + encoderMb();
    }

    /** What loading it takes before a second conversation: its first slot and, for a vision model, its encoder. */
    public long firstLoadMb() {
        return memoryMb + encoderMb();
    }

    private long encoderMb() {
        return vision.map(VisionLoad::memoryMb).orElse(0L);
    }

    /** Loaded alone: a vision model that does not share the NPU (vision.co_resident off). */
    public boolean exclusive() {
        return vision.map(VisionLoad::exclusive).orElse(false);
    }
}
