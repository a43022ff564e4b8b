package io.rkllm.server.engine.contract;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * One engine kind behind the seam: a native library that runs model files of some formats (RKLLM's
 * {@code .rkllm}; later llama.cpp's {@code .gguf}). The registry chooses the backend of a model by its file when
 * the model loads, and from then on speaks to the {@link BackendModel} it returned; neither the engine nor the
 * pipeline learns which backend runs. Implementations live in {@code io.rkllm.server.backend.*}, the only code that
 * touches their native types; the application wires the ones that are available (the engine's {@code Backends}).
 */
public interface Backend {

    /** What the layers above may know of it: its name, its ABI, its sampling. */
    RuntimeInfo info();

    /**
     * Whether a load that runs out of memory takes the process down, asked when the registry starts: a backend whose
     * library opens only when its first model loads answers without opening it.
     */
    default boolean loadFailureIsFatal() {
        return info().loadFailureIsFatal();
    }

    /** The file name endings of the models it runs, lower case ({@code .rkllm}). */
    List<String> formats();

    /** Whether it runs that model file. */
    default boolean runs(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return formats().stream().anyMatch(name::endsWith);
    }

    /**
     * Loads a model (its first slot, and a vision model's encoder), on the model's worker thread; blocks for the
     * whole load. Native loads go through {@code context}, which checks and counts their memory. Throws when the
     * model cannot load, having freed what it had loaded.
     */
    BackendModel load(ModelLoad load, LoadContext context);
}
