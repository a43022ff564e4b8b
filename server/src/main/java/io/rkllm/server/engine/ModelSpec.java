package io.rkllm.server.engine;

import io.rkllm.ffm.ModelParams;

/** What the engine needs to load a model: its id and its init parameters. */
public record ModelSpec(String id, ModelParams params) {
}
