package io.rkllm.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rkllm.server.domain.CancelReason;
import java.util.Locale;

/** Generations cancelled or aborted, by cause: client gone, stop string, watchdogs, queue timeout, ... */
public final class AbortMetrics {
    private final MeterRegistry registry;

    AbortMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void cancelled(String model, CancelReason cause) {
        Counter.builder("rkllm.aborts").description("Generations cancelled while queued or aborted while running, by cause")
                .tag("model", model).tag("cause", cause.name().toLowerCase(Locale.ROOT))
                .register(registry).increment();
    }
}
