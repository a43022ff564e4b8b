package io.rkllm.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rkllm.server.pipeline.embedding.EmbeddingResult;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Embedding requests: how many, how many texts and tokens they carried, the runtime's time per text, and the
 * requests that failed (by the error code their client got).
 */
public final class EmbeddingMetrics {
    private static final Duration[] RUN_BUCKETS = Buckets.seconds(0.01, 0.025, 0.05, 0.1,
            0.25, 0.5, 1, 2, 5, 10, 30);

    private final MeterRegistry registry;
    private final QueueMetrics queue;

    EmbeddingMetrics(MeterRegistry registry, QueueMetrics queue) {
        this.registry = registry;
        this.queue = queue;
    }

    /** A request's vectors were sent. */
    public void finished(String api, EmbeddingResult result) {
        String model = result.modelId();
        Counter.builder("rkllm.embedding.requests").description("Embedding requests answered, by API")
                .tag("model", model).tag("api", api).register(registry).increment();
        Counter.builder("rkllm.embedding.inputs").description("Texts embedded").tag("model", model)
                .register(registry).increment(result.vectors().size());
        Counter.builder("rkllm.embedding.tokens").description("Tokens the embedding model processed, framing included")
                .baseUnit("tokens").tag("model", model).register(registry).increment(result.promptTokens());
        Counter.builder("rkllm.embedding.truncated").description("Texts cut to fit the embedding model")
                .tag("model", model).register(registry).increment(result.truncated());
        if (!result.vectors().isEmpty()) {
            Timer.builder("rkllm.embedding.run").description("The runtime's time per embedded text")
                    .tag("model", model).serviceLevelObjectives(RUN_BUCKETS).register(registry)
                    .record(Math.round(result.runtimeMillis() * 1000 / result.vectors().size()),
                            TimeUnit.MICROSECONDS);
        }
        queue.waited(model, result.queueMillis());
    }

    /** A request failed; {@code code} is the error code its client got (queue_full, runtime_error, ...). */
    public void failed(String model, String code) {
        Counter.builder("rkllm.embedding.failures").description("Embedding requests that failed, by error code")
                .tag("model", model).tag("code", code).register(registry).increment();
    }
}
