package io.rkllm.server.app;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.Backends;
import io.rkllm.server.engine.ModelRegistry;
import io.rkllm.server.engine.RegistrySettings;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.http.HttpServer;
import io.rkllm.server.metrics.Metrics;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelCatalog;
import io.rkllm.server.pipeline.ChatPipeline;
import io.rkllm.server.pipeline.ModelMemory;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.pipeline.SlotCount;
import io.rkllm.server.pipeline.TokenEstimator;
import io.rkllm.server.pipeline.embedding.EmbeddingPipeline;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/** The running server: engine, pipeline and HTTP wired together. Used by Main and by the tests. */
public final class ServerApp implements AutoCloseable {
    private final HttpServer http;
    private final ModelRegistry registry;
    private final AtomicBoolean stopping;
    private final Metrics metrics;

    private ServerApp(HttpServer http, ModelRegistry registry, AtomicBoolean stopping, Metrics metrics) {
        this.http = http;
        this.registry = registry;
        this.stopping = stopping;
        this.metrics = metrics;
    }

    /**
     * A server on the simulated runtime over the simulated models ({@code bench}, {@code cds-archive}), with every
     * engine as {@code serve --simulate} has them.
     *
     * @param models the simulated models ({@link Simulation#models()})
     * @throws StartupException when the simulated runtime does not open (a jar built for another machine)
     */
    public static ServerApp simulated(ServerConfig config, Simulation simulation, Path models,
                                      Map<String, String> environment) {
        EngineSetup setup = new EngineSetup(config, environment, Optional.of(simulation.directory()), 0);
        List<EngineProvider> providers = EngineProviders.all();
        DiscoveryResult discovery = EngineProviders.discovery(providers, setup).discover(models);
        Engines engines = Engines.open(providers, setup, discovery.models()).requireFor(discovery.models());
        return start(config, engines, ServedModels.fixed(discovery.catalog()));
    }

    /** A server whose models run on {@code engines}' backends, each model on its engine's. */
    public static ServerApp start(ServerConfig config, Engines engines, ServedModels served) {
        return start(config, engines.backends(), served);
    }

    /** A server whose models run on {@code backends}, each model on its engine's. */
    public static ServerApp start(ServerConfig config, Backends backends, ModelCatalog catalog) {
        return start(config, backends, ServedModels.fixed(catalog));
    }

    /**
     * A server whose models come from {@code served}: a catalogue that follows the models directory, and pulls into
     * it over HTTP when it has a puller.
     */
    public static ServerApp start(ServerConfig config, Backends backends, ServedModels served) {
        Metrics metrics = Metrics.of(config.metrics());
        long maxMemory = ModelMemory.limit(config.models().maxMemory(),
                SlotCount.systemMemory(Path.of("/proc/meminfo")));
        ModelRegistry registry = new ModelRegistry(backends,
                new RegistrySettings(config.models().maxLoaded(), config.queue().maxWaiting(),
                        config.models().idleUnload(), config.models().loadTimeout(),
                        config.models().memoryCheck(), config.models().memoryBudgetMb(),
                        (long) config.vision().cacheMb() << 20, maxMemory), Clock.systemUTC(),
                metrics.engine());
        ModelService models = new ModelService(served.catalogs(), registry, config);
        metrics.bind(models::loaded);
        TokenEstimator estimator = new TokenEstimator();
        ChatPipeline pipeline = new ChatPipeline(models, estimator, config);
        EmbeddingPipeline embeddings = new EmbeddingPipeline(models, estimator, config);
        AtomicBoolean stopping = new AtomicBoolean();
        HttpServer http;
        try {
            http = new HttpServer(config, pipeline, embeddings, models, served.downloads(),
                    () -> stopping.get() ? "shutting down" : null, metrics, ApiFamilies::all);
        } catch (RuntimeException e) { // e.g. an unreadable security.api_key_file
            registry.shutdown(Duration.ZERO);
            metrics.close();
            throw e;
        }
        try {
            http.start(config.server().host(), config.server().port());
        } catch (RuntimeException e) {
            registry.shutdown(Duration.ZERO);
            metrics.close();
            throw new StartupException("cannot listen on " + config.server().host() + ":"
                    + config.server().port() + ": " + rootMessage(e));
        }
        return new ServerApp(http, registry, stopping, metrics);
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    public int port() {
        return http.port();
    }

    /** The HTTP layer (for tests). */
    public HttpServer http() {
        return http;
    }

    /** Stops accepting requests, lets running generations finish within {@code grace}, frees every model. */
    public void stop(Duration grace) {
        stop(grace, Duration.ZERO);
    }

    /**
     * As {@link #stop(Duration)}, then waits {@code finalWrites} (when models were loaded) before closing the
     * connections: the HTTP layer has no drain of its own, and the request threads of generations that have
     * just ended still have their last events ([DONE], errors) to write. Used on SIGTERM.
     */
    public void stop(Duration grace, Duration finalWrites) {
        if (!stopping.compareAndSet(false, true)) {
            return;
        }
        boolean modelsLoaded = !registry.loadedModels().isEmpty();
        registry.shutdown(grace);
        if (modelsLoaded && finalWrites.isPositive()) {
            try {
                Thread.sleep(finalWrites.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        http.close();
        metrics.close();
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(10));
    }
}
