package io.rkllm.server.app;

import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.server.backend.llama.LlamaBackend;
import io.rkllm.server.backend.rkllm.RkllmBackend;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.Backends;
import io.rkllm.server.engine.contract.Backend;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The engines this machine has, each available or not with the reason: the RKLLM runtime when
 * {@code librkllmrt.so} opens, llama.cpp when a {@code libllama} does. A missing library does not end the server by
 * itself: the server serves the models of the engines it has, a model whose engine is missing fails to load with that
 * engine's reason, and only a machine with no engine at all refuses to start. The start banner and {@code doctor} say
 * which engines there are.
 */
public final class Engines {
    private final Optional<RkllmRuntime> rkllm;
    private final String rkllmMissing;
    private final RknnLibrary rknn;
    private final LlamaEngine llama;
    /** llama.cpp was not opened at the start but may be when a GGUF model comes (the configuration with it). */
    private final java.util.Optional<ServerConfig.Llama> llamaOnDemand;

    /**
     * @param rkllm the RKLLM runtime, when its library opened
     * @param rkllmMissing why it did not (with the fix); ignored when it did
     * @param rknn the RKNN runtime for vision models' image encoders (opened when the first one loads)
     * @param llama llama.cpp's library, or why it is not there
     */
    public Engines(Optional<RkllmRuntime> rkllm, String rkllmMissing, RknnLibrary rknn, LlamaEngine llama) {
        this(rkllm, rkllmMissing, rknn, llama, Optional.empty());
    }

    private Engines(Optional<RkllmRuntime> rkllm, String rkllmMissing, RknnLibrary rknn, LlamaEngine llama,
                    Optional<ServerConfig.Llama> llamaOnDemand) {
        this.rkllm = rkllm;
        this.rkllmMissing = rkllmMissing;
        this.rknn = rknn;
        this.llama = llama;
        this.llamaOnDemand = llamaOnDemand;
    }

    /** Without llama.cpp. */
    public Engines(Optional<RkllmRuntime> rkllm, String rkllmMissing, RknnLibrary rknn) {
        this(rkllm, rkllmMissing, rknn, LlamaEngine.absent("not opened"));
    }

    /**
     * Opens what the configuration names (or the simulated runtimes); a library that does not open is noted.
     * llama.cpp's library is opened when {@code gguf} models are to be served, or when there is no RKLLM runtime
     * (a machine must have one engine); otherwise it is opened when the first GGUF model is asked for (one pulled
     * while the server runs).
     */
    public static Engines open(ServerConfig config, Optional<Simulation> simulation, Map<String, String> environment,
                               boolean gguf) {
        RknnLibrary rknn = RuntimeLoader.rknn(config.runtime(), simulation, environment);
        Optional<RkllmRuntime> rkllm;
        String missing = "";
        try {
            rkllm = Optional.of(RuntimeLoader.open(config.runtime(), simulation, environment));
        } catch (RuntimeLoader.StartupException e) {
            rkllm = Optional.empty();
            missing = e.getMessage();
        }
        boolean now = gguf || rkllm.isEmpty() || !config.engines().llama().enabled();
        LlamaEngine llama = now ? LlamaEngine.open(config.engines().llama())
                : LlamaEngine.absent("not opened yet: no .gguf model in the models directory");
        return new Engines(rkllm, missing, rknn, llama, now ? Optional.empty() : Optional.of(config.engines().llama()));
    }

    /** The RKLLM runtime, when it is available. */
    public Optional<RkllmRuntime> rkllm() {
        return rkllm;
    }

    public LlamaEngine llama() {
        return llama;
    }

    public RknnLibrary rknn() {
        return rknn;
    }

    /**
     * These engines, when at least one is available.
     *
     * @throws RuntimeLoader.StartupException saying why each engine is missing (with the fix)
     */
    public Engines requireOne() {
        if (rkllm.isEmpty() && llama.runtime().isEmpty()) {
            throw new RuntimeLoader.StartupException(rkllmMissing + "\nand no " + LlamaBackend.NAME
                    + " either: " + llama.missing());
        }
        return this;
    }

    /**
     * These engines, when they can serve something: without the RKLLM runtime, only GGUF models can be served, so
     * a models directory with {@code .rkllm} models and no GGUF one stops the server with the runtime's reason, as
     * it always did (a wrong library path or a forced ABI on a board, instead of a server that lists models it can
     * never load), and so does a runtime library the configuration names ({@code runtime.library}, a forced ABI)
     * that does not open. An empty directory and a runtime that is simply not installed do not: a fresh install
     * starts, and GGUF models can be pulled.
     *
     * @param ggufModels the models directory has {@code .gguf} models
     * @param rkllmModels it has {@code .rkllm} models
     * @param runtimeConfigured the configuration names the RKLLM library or forces its ABI
     * @throws RuntimeLoader.StartupException saying why (with the fix)
     */
    public Engines requireFor(boolean ggufModels, boolean rkllmModels, boolean runtimeConfigured) {
        requireOne();
        if (rkllm.isEmpty() && (runtimeConfigured || rkllmModels) && !ggufModels) {
            throw new RuntimeLoader.StartupException(rkllmMissing + "\n(without it the server serves .gguf models"
                    + " through llama.cpp, and the models directory has none)");
        }
        return this;
    }

    /** Why the RKLLM runtime is missing (with the fix); empty when it is there. */
    public Optional<String> rkllmMissing() {
        return rkllm.isPresent() ? Optional.empty() : Optional.of(rkllmMissing);
    }

    /** The backends the engine chooses from, per model file, with the configuration each reads. */
    public Backends backends(ServerConfig config) {
        List<Backend> available = new ArrayList<>();
        List<Backends.Unavailable> unavailable = new ArrayList<>();
        if (rkllm.isPresent()) {
            available.add(new RkllmBackend(rkllm.get(), rknn, ServerApp.rkllmSettings(config)));
        } else {
            unavailable.add(new Backends.Unavailable("the " + RkllmBackend.NAME, List.of(".rkllm"), rkllmMissing));
        }
        if (llama.runtime().isPresent()) {
            available.add(llama.backend(config.engines().llama()));
        } else if (llamaOnDemand.isPresent()) {
            available.add(new OnDemandLlama(llamaOnDemand.get()));
        } else {
            unavailable.add(new Backends.Unavailable("the " + LlamaBackend.NAME, List.of(".gguf"), llama.missing()));
        }
        return new Backends(available, unavailable);
    }

    /** One line per engine, for the start banner and {@code doctor}: what it runs, or why it is missing. */
    public List<String> summary() {
        return List.of(rkllm.map(r -> RkllmBackend.NAME + " (ABI " + r.abi().label() + "): .rkllm models")
                .orElse(RkllmBackend.NAME + ": not available: " + rkllmMissing), llamaOnDemand.isPresent()
                ? LlamaBackend.NAME + ": opened when the first .gguf model loads" : llama.summary());
    }
}
