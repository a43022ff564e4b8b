package io.rkllm.server.engine.contract;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What the engine needs to load a model: its id, the engine that runs it (by name: the registry finds its backend by
 * it), its file, its family (which names it in messages), how it runs, how many copies of it are loaded and how many
 * requests may wait for them, and for a vision model its image encoder.
 */
public record ModelLoad(String id, String engine, Path file, String family, Runs runs, Copies copies,
                        Optional<VisionLoad> vision) {

    /**
     * How it runs.
     *
     * @param contextLength the context it is served with, in tokens
     * @param sampling the sampling fixed at init (the only sampling on runtime 1.2)
     * @param embedding an embedding model (a backend that needs another kind of context for one, llama.cpp, makes
     *                  it when it loads)
     * @param chatTemplate the chat template that replaces the one the file carries (a {@code chat_template.jinja}
     *                     beside it, as llama-server's {@code --chat-template-file}), if there is one
     */
    public record Runs(int contextLength, Sampling sampling, boolean embedding, Optional<String> chatTemplate) {
        public Runs {
            Objects.requireNonNull(sampling, "sampling");
            Objects.requireNonNull(chatTemplate, "chatTemplate");
        }

        /** Keeping the template its file carries. */
        public Runs(int contextLength, Sampling sampling, boolean embedding) {
            this(contextLength, sampling, embedding, Optional.empty());
        }
    }

    /**
     * How many of it.
     *
     * @param slots the handles to create, each with its own KV cache
     * @param memoryMb the memory one handle takes, in MB (stated or estimated by the layer above; the registry's
     *                 {@code models.max_memory} and its memory check before a load both count it)
     * @param maxQueued how many requests may wait for it (0 = the registry's default)
     */
    public record Copies(int slots, long memoryMb, int maxQueued) {
    }

    public ModelLoad {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(runs, "runs");
        Objects.requireNonNull(copies, "copies");
        Objects.requireNonNull(vision, "vision");
    }

    public int contextLength() {
        return runs.contextLength();
    }

    public Sampling sampling() {
        return runs.sampling();
    }

    public boolean embedding() {
        return runs.embedding();
    }

    public Optional<String> chatTemplate() {
        return runs.chatTemplate();
    }

    public int slots() {
        return copies.slots();
    }

    public long memoryMb() {
        return copies.memoryMb();
    }

    public int maxQueued() {
        return copies.maxQueued();
    }

    /** The memory of all its slots and its encoder. */
    public long totalMemoryMb() {
        return memoryMb() * slots() + encoderMb();
    }

    /** What loading it takes before a second conversation: its first slot and, for a vision model, its encoder. */
    public long firstLoadMb() {
        return memoryMb() + encoderMb();
    }

    private long encoderMb() {
        return vision.map(VisionLoad::memoryMb).orElse(0L);
    }

    /** Loaded alone: a vision model that does not share the NPU (vision.co_resident off). */
    public boolean exclusive() {
        return vision.map(VisionLoad::exclusive).orElse(false);
    }
}
