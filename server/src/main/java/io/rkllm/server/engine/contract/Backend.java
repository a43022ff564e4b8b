package io.rkllm.server.engine.contract;

/**
 * One engine behind the seam, opened: a native library that runs the model files of its format (RKLLM's
 * {@code .rkllm}, llama.cpp's {@code .gguf}). Its {@link EngineProvider} opens it; the registry finds it by the
 * engine a model's facts name when the model loads, and from then on speaks to the {@link BackendModel} it returned;
 * neither the engine nor the pipeline learns which backend runs. Implementations live in
 * {@code io.rkllm.server.backend.*}, the only code that touches their native types.
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

    /**
     * Loads a model (its first slot, and a vision model's encoder), on the model's worker thread; blocks for the
     * whole load. Native loads go through {@code context}, which checks and counts their memory. Throws when the
     * model cannot load, having freed what it had loaded.
     */
    BackendModel load(ModelLoad load, LoadContext context);
}
