package io.rkllm.server.pipeline.request;

import java.util.Objects;

/**
 * A piece of another file an editor sends with a fill-in-the-middle request (llama-server's {@code input_extra}: code
 * the user opened, edited or copied lately), which the model reads before the file it completes.
 */
public record FileChunk(String filename, String text) {
    public FileChunk {
        Objects.requireNonNull(filename, "filename");
        Objects.requireNonNull(text, "text");
    }
}
