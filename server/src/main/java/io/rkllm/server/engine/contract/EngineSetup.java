package io.rkllm.server.engine.contract;

import io.rkllm.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What an engine's provider opens the engine and reads model files with.
 *
 * @param config the server's configuration
 * @param environment the process's environment (where libraries are searched)
 * @param simulation with {@code --simulate}, the directory the simulated runtimes are copied into
 * @param memoryBytes the machine's memory, which caps what a model is served with; 0 when unknown (nothing capped)
 */
public record EngineSetup(ServerConfig config, Map<String, String> environment, Optional<Path> simulation,
                          long memoryBytes) {

    public EngineSetup {
        Objects.requireNonNull(config, "config");
        environment = Map.copyOf(environment);
        Objects.requireNonNull(simulation, "simulation");
    }

    /** The configuration alone: no environment, no simulation, the memory unknown (tests and tools). */
    public static EngineSetup of(ServerConfig config) {
        return new EngineSetup(config, Map.of(), Optional.empty(), 0);
    }
}
