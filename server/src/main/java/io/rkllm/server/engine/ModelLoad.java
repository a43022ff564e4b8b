package io.rkllm.server.engine;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What the engine needs to load a model: its id, its file, its context length, the sampling fixed at init
 * (the only sampling on runtime 1.2), how many slots (handles, each with its own KV cache) to create, the
 * memory one handle takes, in MB (stated or estimated by the layer above; {@link MemoryBudget} checks it), and for
 * a vision model its image encoder.
 */
public record ModelLoad(String id, Path file, int contextLength, Sampling sampling, int slots, long memoryMb,
                        Optional<VisionLoad> vision) {

    public ModelLoad {
        Objects.requireNonNull(vision, "vision");
    }

    /** A text model. */
    public ModelLoad(String id, Path file, int contextLength, Sampling sampling, int slots, long memoryMb) {
        this(id, file, contextLength, sampling, slots, memoryMb, Optional.empty());
    }

    /** The memory of all its slots. */
    public long totalMemoryMb() {
        return memoryMb * slots;
    }

    /** Loaded alone: a vision model that does not share the NPU (vision.co_resident off). */
    boolean exclusive() {
        return vision.map(VisionLoad::exclusive).orElse(false);
    }
}
