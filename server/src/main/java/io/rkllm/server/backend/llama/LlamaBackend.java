package io.rkllm.server.backend.llama;

import io.rkllm.llama.ContextParams;
import io.rkllm.llama.LibraryInfo;
import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.LlamaRuntime;
import io.rkllm.llama.ModelParams;
import io.rkllm.server.engine.contract.Backend;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.template.TemplateMessage;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;

/**
 * llama.cpp's C API ({@code libllama}, through the {@code io.rkllm.llama} binding) behind the engine seam:
 * {@code .gguf} models on the CPU (or whatever ggml devices the library has, such as the RKNPU fork's NPU), each
 * with one context whose sequences several conversations share in one batched decode per step, token-level prefix
 * reuse, the model's own Jinja chat template, and embeddings. Everything that knows the binding's types is in this
 * package.
 */
public final class LlamaBackend implements Backend {
    /** The engine as messages name it. */
    public static final String NAME = "llama.cpp library";

    /** llama.cpp's own defaults (llama-server's): what a run uses when neither request nor model says. */
    static final Sampling DEFAULTS = new Sampling(40, 0.95, 0.8, 1.0, 0, 0, 0.05, OptionalLong.empty());

    /**
     * The configuration this backend reads.
     *
     * @param threads {@code engines.llama.threads}: ggml's threads per decode (the board's big cores)
     * @param parallel {@code engines.llama.parallel}: conversations one loaded model runs at once
     * @param gpuLayers layers offloaded to an accelerator backend, when set (the RKNPU fork, a GPU build)
     */
    /** @param layout how a chat model's conversations hold their KV cells */
    public record Settings(int threads, int parallel, OptionalInt gpuLayers, KvLayout layout, long savedPromptBytes) {
        public Settings {
            if (threads < 1 || parallel < 1 || savedPromptBytes < 0) {
                throw new IllegalArgumentException("threads and parallel must be at least 1, saved prompts' bytes 0"
                        + " or more");
            }
            java.util.Objects.requireNonNull(layout, "layout");
        }

        /** No conversation's state kept in memory once its sequence serves another. */
        public Settings(int threads, int parallel, OptionalInt gpuLayers, KvLayout layout) {
            this(threads, parallel, gpuLayers, layout, 0);
        }

        /** With one KV cache the conversations share. */
        public Settings(int threads, int parallel, OptionalInt gpuLayers) {
            this(threads, parallel, gpuLayers, KvLayout.SHARED);
        }

        /** The same with {@code bytes} for conversations' states kept in memory ({@link SavedPrompts}). */
        public Settings withSavedPrompts(long bytes) {
            return new Settings(threads, parallel, gpuLayers, layout, bytes);
        }
    }

    private final LlamaRuntime runtime;
    private final Settings settings;
    private final RuntimeInfo info;

    public LlamaBackend(LlamaRuntime runtime, Settings settings) {
        this.runtime = runtime;
        this.settings = settings;
        LibraryInfo library = runtime.info();
        this.info = new RuntimeInfo(NAME, label(library), true, DEFAULTS, false, true, ChatPrompt.Form.MESSAGES);
    }

    /** The library's build and API generation, as the banner and {@code /health} say it. */
    public static String label(LibraryInfo library) {
        String build = library.identity().buildNumber().isPresent()
                ? "b" + library.identity().buildNumber().getAsInt() : "build unknown";
        return build + ", " + library.identity().generation() + " layouts, " + library.identity().kvApi()
                + " KV calls";
    }

    @Override
    public RuntimeInfo info() {
        return info;
    }

    /** How a GGUF model's file is opened (mapped; layers offloaded when configured). */
    public static ModelParams modelParams(Path file, Settings settings) {
        ModelParams params = ModelParams.of(file);
        return settings.gpuLayers().isPresent() ? params.withGpuLayers(settings.gpuLayers().getAsInt()) : params;
    }

    /**
     * The context of a chat model served with {@code contextLength} tokens: one sequence per parallel conversation
     * and one for background tasks, each with a KV cache of its own of {@code contextLength} cells
     * ({@code ownCaches}, as llama-server's slots have), or sharing one (unified: each may grow to all of it, and when
     * together they hold it all, the least recently used idle one gives its cells up). {@link KvLayout} says why.
     */
    public static ContextParams chatContext(int contextLength, Settings settings, boolean ownCaches) {
        return ContextParams.generation(contextLength, settings.parallel() + 1, settings.threads(), ownCaches);
    }

    /** The same, sharing one cache. */
    public static ContextParams chatContext(int contextLength, Settings settings) {
        return chatContext(contextLength, settings, false);
    }

    /**
     * What this backend decodes for a conversation of one user message (no system prompt, thinking off): the text
     * rendered by the model's own chat template; empty when it has none that renders (the pipeline's family template
     * is then used). The bench gives the library the same prompt as the server with it.
     */
    public static Optional<UnaryOperator<String>> userTurns(LlamaModel model) {
        return GgufModel.template("bench", model).map(t -> text -> t.render(TemplateMessage.of("user", text),
                false));
    }

    @Override
    public BackendModel load(ModelLoad load, LoadContext context) {
        return GgufModel.load(runtime, load, context, settings, DEFAULTS);
    }
}
