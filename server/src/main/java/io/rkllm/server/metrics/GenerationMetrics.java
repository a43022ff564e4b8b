package io.rkllm.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rkllm.server.pipeline.Usage;
import java.util.concurrent.TimeUnit;

/**
 * One finished answer's numbers, from the pipeline's {@link Usage} (the runtime's own counters):
 * tokens prefilled, reused from the KV cache and generated, prefill and decode times, time to first token.
 */
public final class GenerationMetrics {
    private final MeterRegistry registry;
    private final QueueMetrics queue;

    GenerationMetrics(MeterRegistry registry, QueueMetrics queue) {
        this.registry = registry;
        this.queue = queue;
    }

    /**
     * A request's answer is complete. Answers given without inference (Open WebUI tasks derived from the
     * request) count no tokens and no times.
     */
    public void finished(String model, String finishReason, Usage usage) {
        boolean ran = usage.prefilledTokens() > 0 || usage.completionTokens() > 0;
        if (!ran) {
            return;
        }
        Counter.builder("rkllm.generations").description("Answers generated, by finish reason")
                .tag("model", model).tag("finish_reason", finishReason).register(registry).increment();
        tokens("rkllm.prefill.tokens", "Prompt tokens processed by prefill", model, usage.prefilledTokens());
        tokens("rkllm.cached.tokens", "Prompt tokens reused from the KV cache instead of prefilled", model,
                usage.cachedTokens());
        tokens("rkllm.generated.tokens", "Tokens generated", model, usage.completionTokens());
        if (usage.timeToFirstTokenMillis() >= 0 && usage.completionTokens() > 0) {
            histogram("rkllm.time.to.first.token", "From the request's arrival to its first generated token",
                    model).record(usage.timeToFirstTokenMillis(), TimeUnit.MILLISECONDS);
        }
        if (usage.prefilledTokens() > 0) {
            histogram("rkllm.prefill.duration", "Prefill time as the runtime measured it", model)
                    .record(Math.round(usage.prefillMs() * 1000), TimeUnit.MICROSECONDS);
        }
        if (usage.completionTokens() > 0) {
            histogram("rkllm.decode.duration", "Decode (generation) time as the runtime measured it", model)
                    .record(Math.round(usage.generateMs() * 1000), TimeUnit.MICROSECONDS);
        }
        queue.waited(model, usage.queueMillis());
    }

    /**
     * An answer that had to meet a contract (JSON, a schema, a tool call) was checked: {@code valid} at once,
     * {@code repaired}, {@code retried}, {@code retried_repaired}, or {@code failed}.
     */
    public void checked(String model, String outcome) {
        Counter.builder("rkllm.output.checks").description("Answers checked against the request's JSON or tool"
                + " contract, by outcome").tag("model", model).tag("outcome", outcome).register(registry).increment();
    }

    private void tokens(String name, String description, String model, int count) {
        Counter.builder(name).description(description).baseUnit("tokens").tag("model", model)
                .register(registry).increment(count);
    }

    private Timer histogram(String name, String description, String model) {
        return Timer.builder(name).description(description).tag("model", model)
                .serviceLevelObjectives(Buckets.LATENCY).register(registry);
    }
}
