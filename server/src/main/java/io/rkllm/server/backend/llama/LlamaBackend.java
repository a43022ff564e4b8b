package io.rkllm.server.backend.llama;

import io.rkllm.llama.LibraryInfo;
import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.LlamaRuntime;
import io.rkllm.server.engine.contract.Backend;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.template.TemplateMessage;
import java.util.Optional;
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

    private final LlamaRuntime runtime;
    private final LlamaSettings settings;
    private final RuntimeInfo info;

    public LlamaBackend(LlamaRuntime runtime, LlamaSettings settings) {
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
