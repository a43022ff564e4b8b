package io.rkllm.server.backend.llama;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.DoctorContext;
import io.rkllm.server.engine.contract.DoctorLine;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.engine.contract.Opening;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelFormat;
import java.util.List;

/**
 * llama.cpp as an engine of the server: {@code .gguf} models, with the library {@code engines.llama.*} names (else
 * the one the locator finds, else the jar's). A server without GGUF models opens it when the first one loads.
 */
public final class LlamaProvider implements EngineProvider {
    /** The engine's name, as {@code /v1/models} gives it. */
    public static final String NAME = "llama.cpp";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String title() {
        return LlamaBackend.NAME;
    }

    @Override
    public ModelFormat format(EngineSetup setup) {
        return new GgufFormat(LlamaOpening.limits(setup.config(), setup.memoryBytes()));
    }

    @Override
    public Opening open(EngineSetup setup, List<ModelDescriptor> models, boolean now) {
        ServerConfig.Llama config = setup.config().engines().llama();
        if (!now && config.enabled()) {
            return new Opening.Deferred(new DeferredLlamaBackend(config, setup.memoryBytes()), List.of("llama.cpp: " + LlamaBackend.NAME
                    + ": opened when the first .gguf model loads"));
        }
        LlamaOpening opened = LlamaOpening.open(config);
        List<String> banner = List.of("llama.cpp: " + opened.summary());
        return opened.runtime().isPresent() ? new Opening.Opened(opened.backend(config, setup.memoryBytes()), banner)
                : new Opening.Unavailable(opened.missing(), config.enabled() && !config.library().isBlank(), banner);
    }

    /**
     * The library: where it is, why it was chosen, its build, API generation and ggml devices; not blocking when
     * missing (only GGUF models need it).
     */
    @Override
    public List<DoctorLine> doctor(EngineSetup setup, List<ModelDescriptor> models, DoctorContext context) {
        LlamaOpening llama = LlamaOpening.open(setup.config().engines().llama());
        if (llama.runtime().isEmpty()) {
            return List.of(DoctorLine.warn("llama", "llama.cpp not available: " + llama.missing(), "GGUF models need"
                    + " it: set engines.llama.library to a libllama.so (docs/llama-engine.md), or leave it empty for the"
                    + " build bundled in the jar"));
        }
        return List.of(DoctorLine.ok("llama", llama.summary() + "; " + llama.runtime().get().info().systemInfo()));
    }
}
