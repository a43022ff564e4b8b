package io.rkllm.server.app;

import io.rkllm.server.backend.llama.LlamaProvider;
import io.rkllm.server.backend.rkllm.RkllmProvider;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.models.ModelDiscovery;
import io.rkllm.server.models.ModelFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engines this server has: the one list an engine is added to (its provider, in its own backend folder, does the
 * rest). A model file goes to the first engine whose format has its ending.
 */
public final class EngineProviders {
    private EngineProviders() {
    }

    public static List<EngineProvider> all() {
        return List.of(new RkllmProvider(), new LlamaProvider());
    }

    /** The settings of {@code providers}' engines beyond the built-in ones, by engine name, for the configuration. */
    public static Map<String, Map<String, String>> settings(List<EngineProvider> providers) {
        Map<String, Map<String, String>> settings = new LinkedHashMap<>();
        providers.stream().filter(p -> !p.settings().isEmpty()).forEach(p -> settings.put(p.name(), p.settings()));
        return settings;
    }

    /** The model files of {@code providers}' engines and what each reads of them. */
    public static List<ModelFormat> formats(List<EngineProvider> providers, EngineSetup setup) {
        return providers.stream().map(p -> p.format(setup)).toList();
    }

    /** Discovery of the models {@code providers}' engines run, as {@code setup} serves them. */
    public static ModelDiscovery discovery(List<EngineProvider> providers, EngineSetup setup) {
        return new ModelDiscovery(formats(providers, setup));
    }

    /** Discovery of the models of every engine. */
    public static ModelDiscovery discovery(EngineSetup setup) {
        return discovery(all(), setup);
    }
}
