package io.rkllm.server.engine;

import io.rkllm.ffm.ModelParams;

/**
 * What the engine needs to load a model: its id, its init parameters, and how many handles
 * (slots, each with its own KV cache) to create.
 */
public record ModelSpec(String id, ModelParams params, int slots) {
}
