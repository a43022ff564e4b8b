package io.rkllm.llama;

import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * What {@code llama_model_load_from_file} is given; every other field keeps the library's default.
 *
 * @param useMmap   map the file instead of reading it (the model's pages are shared and loaded on demand)
 * @param gpuLayers layers to offload to an accelerator backend (a GPU, or the RKNPU fork's NPU); empty keeps the
 *                  library's default
 * @param vocabOnly load the vocabulary alone (tokenizing without the weights)
 */
public record ModelParams(Path path, boolean useMmap, OptionalInt gpuLayers, boolean vocabOnly) {

    public static ModelParams of(Path path) {
        return new ModelParams(path, true, OptionalInt.empty(), false);
    }

    public ModelParams withUseMmap(boolean value) {
        return new ModelParams(path, value, gpuLayers, vocabOnly);
    }

    public ModelParams withGpuLayers(int value) {
        return new ModelParams(path, useMmap, OptionalInt.of(value), vocabOnly);
    }

    public ModelParams withVocabOnly(boolean value) {
        return new ModelParams(path, useMmap, gpuLayers, value);
    }
}
