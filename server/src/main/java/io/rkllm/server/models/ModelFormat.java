package io.rkllm.server.models;

import java.nio.file.Path;
import java.util.List;

/**
 * The model files one engine runs and what it reads of them for the catalogue: its provider's part in discovery.
 * Discovery gives each model file to the first format whose endings it has.
 */
public interface ModelFormat {

    /** The file name endings of its model files, lower case ({@code .gguf}). */
    List<String> endings();

    /**
     * Whether the file loads with another of the engine's model files and is no model of its own (a split model's
     * later part, its first part there): discovery leaves it out, and it does not make its folder hold two models.
     */
    default boolean partOfAnother(Path file) {
        return false;
    }

    /** What the engine makes of one of its model files: its facts, or why the file is not served. */
    FileReading read(Path file);

    /**
     * Whether the engine runs an image encoder found beside a model file ({@code .rknn}: a vision model), as RKLLM
     * does; an engine that does not serves the model as a text model.
     */
    default boolean encodersBeside() {
        return false;
    }
}
