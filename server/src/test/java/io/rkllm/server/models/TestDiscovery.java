package io.rkllm.server.models;

import io.rkllm.server.app.EngineProviders;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.EngineSetup;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Discovery with every engine's format, as the built-in configuration serves them with one conversation per GGUF
 * model and the machine's memory unknown (so that nothing a test sees depends on the machine it runs on).
 */
public final class TestDiscovery {
    private TestDiscovery() {
    }

    public static ModelDiscovery standard() {
        return new ModelDiscovery(formats());
    }

    public static ModelDiscovery standard(FamilyProfiles profiles, int maxDepth) {
        return new ModelDiscovery(profiles, maxDepth, formats());
    }

    /** Every engine's format as {@code config} serves them, the memory unknown. */
    public static ModelDiscovery of(ServerConfig config) {
        return EngineProviders.discovery(EngineSetup.of(config));
    }

    private static List<ModelFormat> formats() {
        ServerConfig config = new ConfigLoader(Path.of(".")).load(Optional.empty(), Map.of(),
                Map.of("engines.llama.parallel", "1")).config();
        return EngineProviders.formats(EngineProviders.all(), EngineSetup.of(config));
    }
}
