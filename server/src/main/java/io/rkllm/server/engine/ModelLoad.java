package io.rkllm.server.engine;

import java.nio.file.Path;

/**
 * What the engine needs to load a model: its id, its file, its context length, the sampling fixed at init
 * (the only sampling on runtime 1.2), how many slots (handles, each with its own KV cache) to create, the memory
 * one handle is expected to take (for the registry's memory check; 0 = unknown) and how many requests may wait
 * for it (0 = the registry's default).
 */
public record ModelLoad(String id, Path file, int contextLength, Sampling sampling, int slots, long memoryBytes,
                        int maxQueued) {

    /** A model of unknown memory use with the registry's queue length. */
    public ModelLoad(String id, Path file, int contextLength, Sampling sampling, int slots) {
        this(id, file, contextLength, sampling, slots, 0, 0);
    }
}
