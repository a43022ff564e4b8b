package io.rkllm.server.app;

import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.server.backend.rkllm.RkllmBackend;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.Backend;
import io.rkllm.server.engine.Backends;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The engines this machine has, each available or not with the reason: the RKLLM runtime when
 * {@code librkllmrt.so} opens (later llama.cpp when {@code libllama} does). A missing library no longer ends the
 * server by itself: the server serves the models of the engines it has, a model whose engine is missing fails to
 * load with that engine's reason, and only a machine with no engine at all refuses to start. The start banner and
 * {@code doctor} say which engines there are.
 */
public final class Engines {
    private final Optional<RkllmRuntime> rkllm;
    private final String rkllmMissing;
    private final RknnLibrary rknn;

    /**
     * @param rkllm the RKLLM runtime, when its library opened
     * @param rkllmMissing why it did not (with the fix); ignored when it did
     * @param rknn the RKNN runtime for vision models' image encoders (opened when the first one loads)
     */
    public Engines(Optional<RkllmRuntime> rkllm, String rkllmMissing, RknnLibrary rknn) {
        this.rkllm = rkllm;
        this.rkllmMissing = rkllmMissing;
        this.rknn = rknn;
    }

    /** Opens what the configuration names (or the simulated runtimes); a library that does not open is noted. */
    public static Engines open(ServerConfig.Runtime config, Optional<Simulation> simulation,
                               Map<String, String> environment) {
        RknnLibrary rknn = RuntimeLoader.rknn(config, simulation, environment);
        try {
            return new Engines(Optional.of(RuntimeLoader.open(config, simulation, environment)), "", rknn);
        } catch (RuntimeLoader.StartupException e) {
            return new Engines(Optional.empty(), e.getMessage(), rknn);
        }
    }

    /** The RKLLM runtime, when it is available. */
    public Optional<RkllmRuntime> rkllm() {
        return rkllm;
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
        if (rkllm.isEmpty()) {
            throw new RuntimeLoader.StartupException(rkllmMissing);
        }
        return this;
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
        return new Backends(available, unavailable);
    }

    /** One line per engine, for the start banner and {@code doctor}: what it runs, or why it is missing. */
    public List<String> summary() {
        return List.of(rkllm.map(r -> RkllmBackend.NAME + " (ABI " + r.abi().label() + "): .rkllm models")
                .orElse(RkllmBackend.NAME + ": not available: " + rkllmMissing));
    }
}
