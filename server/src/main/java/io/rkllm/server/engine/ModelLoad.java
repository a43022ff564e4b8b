package io.rkllm.server.engine;

import java.nio.file.Path;

/**
 * What the engine needs to load a model: its id, its file, its context length, the sampling fixed at init
 * (the only sampling on runtime 1.2), how many slots (handles, each with its own KV cache) to create, and the
 * memory one handle takes, in MB (stated or estimated by the layer above; {@link MemoryBudget} checks it).
 */
public record ModelLoad(String id, Path file, int contextLength, Sampling sampling, int slots, long memoryMb) {

    /** The memory of all its slots. */
    public long totalMemoryMb() {
        return memoryMb * slots;
    }
}
