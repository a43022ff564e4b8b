package io.rkllm.server.engine.contract;

import io.rkllm.server.models.VisionSpec;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The vision half of a model as the engine loads it: the model's description of its image encoder and of how the
 * language model takes the encoder's output (the catalogue's {@link VisionSpec}, from its files and its
 * {@code model.yaml}: what an engine needs of it, its own settings included, is its to read), and what the load
 * policy decided.
 *
 * @param exclusive the model takes the accelerator alone: others are unloaded before it loads, and it before them
 * @param memoryMb what the loaded encoder takes, in MB (estimated by the layer above; checked like a slot)
 */
public record VisionLoad(VisionSpec spec, boolean exclusive, long memoryMb) {

    public VisionLoad {
        Objects.requireNonNull(spec, "spec");
    }

    /** The encoder's file. */
    public Path encoder() {
        return spec.encoder();
    }
}
