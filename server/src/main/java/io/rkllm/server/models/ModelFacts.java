package io.rkllm.server.models;

import java.util.Optional;

/**
 * What the engine that runs a model made of its file when the model was discovered: which engine runs it, the file's
 * format, what the file's header says (when the engine reads one) and how a loaded copy is sized. Each engine has its
 * own kind, written by its provider's {@link ModelFormat} in its backend's folder; the catalogue, the pipeline and the
 * routes read them through this interface and never ask which engine it is.
 */
public interface ModelFacts {

    /** The engine that runs the model, by its provider's name: what {@code /v1/models} says ({@code llama.cpp}). */
    String engine();

    /** The file's format, as Ollama's model details name it ({@code gguf}, {@code rkllm}). */
    String format();

    /** What the file's header says of the model; empty for a file the engine does not read (an opaque one). */
    default Optional<ModelHeader> header() {
        return Optional.empty();
    }

    /** The bytes of the model's other files, which load with the one discovered (a split model's later parts). */
    default long otherFilesBytes() {
        return 0;
    }

    /** Conversations one loaded copy of the model runs at once. */
    default int parallel() {
        return 1;
    }

    /**
     * How a loaded copy's conversations hold their KV cache, served with {@code context} tokens from a file of
     * {@code fileBytes}: {@code per_conversation} (a cache each) or {@code shared}; empty for an engine with no choice.
     */
    default Optional<String> kvCache(long fileBytes, int context) {
        return Optional.empty();
    }

    /**
     * Whether one loaded copy holds every conversation the model keeps (the sequences of one context sharing its KV
     * cache), rather than a copy for each one kept cached ({@code cache.slots}).
     */
    default boolean oneCopyServesAll() {
        return false;
    }

    /**
     * What one loaded copy takes, in bytes, served with a context of {@code context} tokens, when the model's
     * {@code model.yaml} does not say: by default {@link #opaqueCopyBytes}, as nothing finer is known of a file that is
     * not read.
     */
    default long copyBytes(long fileBytes, int context) {
        return opaqueCopyBytes(fileBytes);
    }

    /** A loaded copy of a model file that is not read: about 1.3 times the file (weights, buffers, KV cache). */
    static long opaqueCopyBytes(long fileBytes) {
        return fileBytes * 13 / 10;
    }
}
