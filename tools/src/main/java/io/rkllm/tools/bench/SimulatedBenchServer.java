package io.rkllm.tools.bench;

import io.rkllm.server.app.ServerApp;
import io.rkllm.server.app.Simulation;
import io.rkllm.server.config.ConfigLoader;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A server started here on the simulated runtime over the simulated models, for the benches run without
 * {@code --url}: on an ephemeral port, without an access log, the configuration flags of the command line applied.
 */
record SimulatedBenchServer(ServerApp app, Simulation simulation) implements AutoCloseable {

    static SimulatedBenchServer start(ConfigLoader loader, Map<String, String> environment,
                                      Map<String, String> configFlags) {
        Map<String, String> flags = new LinkedHashMap<>(configFlags);
        flags.put("runtime.simulate", "true");
        flags.putIfAbsent("server.port", "0");
        flags.putIfAbsent("logging.access_log", "false");
        ConfigLoader.Loaded loaded = loader.load(Optional.empty(), environment, flags);
        Simulation simulation = Simulation.inTempDirectory();
        try {
            return new SimulatedBenchServer(ServerApp.simulated(loaded.config(), simulation, simulation.models(),
                    environment), simulation);
        } catch (RuntimeException e) {
            simulation.close();
            throw e;
        }
    }

    String url() {
        return "http://127.0.0.1:" + app.port();
    }

    @Override
    public void close() {
        app.stop(Duration.ofSeconds(5));
        simulation.close();
    }
}
