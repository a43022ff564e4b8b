package io.rkllm.server.backend.llama;

import io.rkllm.llama.ContextParams;
import io.rkllm.llama.ModelParams;
import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The configuration the llama.cpp backend reads, and the model and context parameters it makes of it.
 *
 * @param threads {@code engines.llama.threads}: ggml's threads per decode (the board's big cores)
 * @param parallel {@code engines.llama.parallel}: conversations one loaded model runs at once
 * @param gpuLayers layers offloaded to an accelerator backend, when set (the RKNPU fork, a GPU build)
 * @param layout how a chat model's conversations hold their KV cells
 * @param savedPromptBytes memory for conversations' states kept once their sequence serves another
 */
public record LlamaSettings(int threads, int parallel, OptionalInt gpuLayers, KvLayout layout, long savedPromptBytes) {
    public LlamaSettings {
        if (threads < 1 || parallel < 1 || savedPromptBytes < 0) {
            throw new IllegalArgumentException("threads and parallel must be at least 1, saved prompts' bytes 0"
                    + " or more");
        }
        Objects.requireNonNull(layout, "layout");
    }

    /** No conversation's state kept in memory once its sequence serves another. */
    public LlamaSettings(int threads, int parallel, OptionalInt gpuLayers, KvLayout layout) {
        this(threads, parallel, gpuLayers, layout, 0);
    }

    /** With one KV cache the conversations share. */
    public LlamaSettings(int threads, int parallel, OptionalInt gpuLayers) {
        this(threads, parallel, gpuLayers, KvLayout.SHARED);
    }

    /** The same with {@code bytes} for conversations' states kept in memory ({@link SavedPrompts}). */
    public LlamaSettings withSavedPrompts(long bytes) {
        return new LlamaSettings(threads, parallel, gpuLayers, layout, bytes);
    }

    /** How a GGUF model's file is opened (mapped; layers offloaded when configured). */
    public ModelParams modelParams(Path file) {
        ModelParams params = ModelParams.of(file);
        return gpuLayers().isPresent() ? params.withGpuLayers(gpuLayers().getAsInt()) : params;
    }

    /**
     * The context of a chat model served with {@code contextLength} tokens: one sequence per parallel conversation
     * and one for background tasks, each with a KV cache of its own of {@code contextLength} cells
     * ({@code ownCaches}, as llama-server's slots have), or sharing one (unified: each may grow to all of it, and when
     * together they hold it all, the least recently used idle one gives its cells up). {@link KvLayout} says why.
     */
    public ContextParams chatContext(int contextLength, boolean ownCaches) {
        return ContextParams.generation(contextLength, parallel() + 1, threads(), ownCaches);
    }

    /** The same, sharing one cache. */
    public ContextParams chatContext(int contextLength) {
        return chatContext(contextLength, false);
    }
}
