package io.rkllm.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.rkllm.server.pipeline.ModelStatus;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Each loaded model's queue: generations waiting and running now, and how long requests waited. */
public final class QueueMetrics {
    private final MeterRegistry registry;
    private final MultiGauge waiting;
    private final MultiGauge running;

    QueueMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.waiting = MultiGauge.builder("rkllm.queue.waiting")
                .description("Generations waiting in the model's queue (the running one not included)")
                .register(registry);
        this.running = MultiGauge.builder("rkllm.queue.running")
                .description("Jobs the model runs now: its generations (up to as many as it runs at once), or one"
                        + " embedding request").register(registry);
    }

    void waited(String model, long millis) {
        Timer.builder("rkllm.queue.wait").description("Time a request waited in the queue before its run started")
                .tag("model", model).serviceLevelObjectives(Buckets.LATENCY)
                .register(registry).record(Math.max(0, millis), TimeUnit.MILLISECONDS);
    }

    /** Called before each scrape: one row per loaded model. */
    void refresh(List<ModelStatus> models) {
        waiting.register(models.stream().map(m -> MultiGauge.Row.of(Tags.of("model", m.id()), m.queued()))
                .toList(), true);
        running.register(models.stream().map(m -> MultiGauge.Row.of(Tags.of("model", m.id()), m.running()))
                .toList(), true);
    }
}
