package io.rkllm.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.rkllm.server.engine.ModelListener;
import io.rkllm.server.pipeline.ModelStatus;
import java.time.Duration;
import java.util.List;

/** Model loads (with their time), failed loads, unloads by reason, and which models are loaded now. */
public final class ModelMetrics implements ModelListener {
    private static final Duration[] LOAD_BUCKETS = Buckets.seconds(1, 2, 5, 10, 20, 30, 60, 120, 300);

    private final MeterRegistry registry;
    private final MultiGauge loaded;

    ModelMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.loaded = MultiGauge.builder("rkllm.model.loaded")
                .description("1 for each model that is loaded and ready").register(registry);
    }

    @Override
    public void loaded(String id, Duration took) {
        loads(id, "ok");
        Timer.builder("rkllm.model.load.duration").description("Time a model load took (per slot)")
                .tag("model", id).serviceLevelObjectives(LOAD_BUCKETS).register(registry).record(took);
    }

    @Override
    public void loadFailed(String id, String message) {
        loads(id, "failed");
    }

    @Override
    public void unloaded(String id, String why) {
        Counter.builder("rkllm.model.unloads").description("Models unloaded, by reason")
                .tag("model", id).tag("reason", reason(why)).register(registry).increment();
    }

    private void loads(String id, String result) {
        Counter.builder("rkllm.model.loads").description("Model loads, by result")
                .tag("model", id).tag("result", result).register(registry).increment();
    }

    /** The registry's free-text reason as a bounded label: switch, idle, requested or other. */
    static String reason(String why) {
        if (why == null) {
            return "other";
        }
        if (why.startsWith("idle")) {
            return "idle";
        }
        return switch (why) {
            case "switch", "requested" -> why;
            default -> "other";
        };
    }

    void refresh(List<ModelStatus> models) {
        loaded.register(models.stream().filter(ModelStatus::ready)
                .map(m -> MultiGauge.Row.of(Tags.of("model", m.id()), 1)).toList(), true);
    }
}
