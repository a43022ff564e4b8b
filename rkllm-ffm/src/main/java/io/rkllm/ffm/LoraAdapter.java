package io.rkllm.ffm;

import java.nio.file.Path;

/** RKLLMLoraAdapter: an adapter file loaded under a name, applied to runs that name it. */
public record LoraAdapter(Path path, String name, float scale) {
}
