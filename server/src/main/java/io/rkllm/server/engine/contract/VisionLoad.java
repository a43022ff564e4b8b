package io.rkllm.server.engine.contract;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The vision half of a model: its image encoder and how the language model takes the encoder's output.
 *
 * @param encoder the {@code .rknn} file
 * @param imageStart the tag before an image's tokens (the runtime expands each {@code <image>} of a prompt into
 *                   start, content x tokens, end)
 * @param baseDomainId the NPU memory domain the language model starts in
 * @param exclusive the model takes the NPU alone: others are unloaded before it loads, and it before them
 * @param memoryMb what the loaded encoder takes, in MB (estimated by the layer above; checked like a slot)
 */
public record VisionLoad(Path encoder, String imageStart, String imageEnd, String imageContent,
                         int baseDomainId, boolean exclusive, long memoryMb) {

    public VisionLoad {
        Objects.requireNonNull(encoder, "encoder");
        Objects.requireNonNull(imageStart, "imageStart");
        Objects.requireNonNull(imageEnd, "imageEnd");
        Objects.requireNonNull(imageContent, "imageContent");
    }
}
