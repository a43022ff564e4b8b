package io.rkllm.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.ModelListener;
import io.rkllm.server.pipeline.ModelStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * Every metric of the server, in one Prometheus registry, fed by the places that know: the HTTP layer
 * (requests, finished answers, aborts), the model registry's listener (loads, unloads) and, at scrape
 * time, the engine's queues, the NPU's sysfs files and the JVM. Disabled, the same objects record into
 * a registry that keeps nothing.
 */
public final class Metrics implements AutoCloseable {
    /** One exposition: its content type and bytes. */
    public record Scrape(String contentType, byte[] body) {
    }

    private final PrometheusMeterRegistry prometheus;
    /** The Prometheus text format 0.0.4, what every scraper understands. */
    static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    static final String PROTOBUF = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;"
            + " encoding=delimited";
    private final HttpMetrics http;
    private final QueueMetrics queue;
    private final GenerationMetrics generations;
    private final ModelMetrics models;
    private final AbortMetrics aborts;
    private final EmbeddingMetrics embeddings;
    private final VisionMetrics vision;
    private final MeterRegistry registry;
    /** Bound at the first scrape: see {@link #bindJvmMetrics()}. */
    private JvmMetrics jvm;
    private volatile Supplier<List<ModelStatus>> loaded = List::of;

    private Metrics(PrometheusMeterRegistry prometheus, MeterRegistry registry, ServerConfig.Metrics config) {
        this.prometheus = prometheus;
        this.http = new HttpMetrics(registry);
        this.queue = new QueueMetrics(registry);
        this.generations = new GenerationMetrics(registry, queue);
        this.models = new ModelMetrics(registry);
        this.aborts = new AbortMetrics(registry);
        this.embeddings = new EmbeddingMetrics(registry, queue);
        this.vision = new VisionMetrics(registry);
        this.registry = registry;
        if (prometheus != null) {
            new NpuMetrics(registry, config.sysfsRoot());
        }
    }

    /**
     * The JVM binders load the JDK's management classes (about 2 MB of resident memory): they are bound
     * when something first scrapes, so that a server nobody monitors does not carry them. Their series are
     * gauges read at scrape time anyway; only the GC pause counts start at the first scrape instead of at
     * start.
     */
    private synchronized void bindJvmMetrics() {
        if (jvm == null) {
            jvm = new JvmMetrics(registry);
        }
    }

    /** Metrics as configured: a Prometheus registry when enabled, else one that keeps nothing. */
    public static Metrics of(ServerConfig.Metrics config) {
        if (!config.enabled()) {
            return new Metrics(null, new CompositeMeterRegistry(), config);
        }
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        return new Metrics(registry, registry, config);
    }

    /** The registry the meters live in (tests look meters up by name). */
    MeterRegistry registry() {
        return registry;
    }

    public boolean enabled() {
        return prometheus != null;
    }

    /** The loaded models' gauges (queue, loaded) read this registry at scrape time. */
    public void bind(Supplier<List<ModelStatus>> loadedModels) {
        this.loaded = loadedModels;
    }

    public HttpMetrics http() {
        return http;
    }

    public GenerationMetrics generations() {
        return generations;
    }

    public ModelMetrics models() {
        return models;
    }

    public AbortMetrics aborts() {
        return aborts;
    }

    public EmbeddingMetrics embeddings() {
        return embeddings;
    }

    public VisionMetrics vision() {
        return vision;
    }

    /** What the engine reports (loads, unloads, image encoder runs), for the model registry. */
    public ModelListener engine() {
        return new ModelListener() {
            @Override
            public void loaded(String id, Duration took) {
                models.loaded(id, took);
            }

            @Override
            public void unloaded(String id, String why) {
                models.unloaded(id, why);
            }

            @Override
            public void loadFailed(String id, String message) {
                models.loadFailed(id, message);
            }

            @Override
            public void imageEncoded(String id, Duration took) {
                vision.imageEncoded(id, took);
            }

            @Override
            public void imageFromCache(String id) {
                vision.imageFromCache(id);
            }

            @Override
            public void encoderFailed(String id, String message) {
                vision.encoderFailed(id, message);
            }
        };
    }

    /**
     * The exposition in the format the scraper's {@code Accept} header asks for: OpenMetrics or Prometheus'
     * protobuf format when listed, else the Prometheus text format 0.0.4.
     */
    public Scrape scrape(String accept) {
        if (prometheus == null) {
            throw new IllegalStateException("metrics are disabled");
        }
        bindJvmMetrics();
        var rows = loaded.get();
        queue.refresh(rows);
        models.refresh(rows);
        String contentType = negotiate(accept);
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        try {
            prometheus.scrape(out, contentType);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Scrape(contentType, out.toByteArray());
    }

    static String negotiate(String accept) {
        String a = accept == null ? "" : accept;
        if (a.contains("application/vnd.google.protobuf") && a.contains("io.prometheus.client.MetricFamily")) {
            return PROTOBUF;
        }
        return a.contains("application/openmetrics-text") ? OPENMETRICS : TEXT;
    }

    @Override
    public synchronized void close() {
        if (jvm != null) {
            jvm.close();
        }
        if (prometheus != null) {
            prometheus.close();
        }
    }
}
