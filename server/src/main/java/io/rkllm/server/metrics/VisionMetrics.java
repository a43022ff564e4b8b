package io.rkllm.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rkllm.server.engine.ModelListener;
import java.time.Duration;

/**
 * Vision models: how long the image encoder takes per picture, how many pictures it encoded and how many came from
 * the embedding cache instead (a follow-up that resends a picture should cost no encoder run), encoder failures.
 */
public final class VisionMetrics implements ModelListener {
    private static final Duration[] ENCODE_BUCKETS = Buckets.seconds(0.5, 1, 2, 3, 5, 10, 20, 30);

    private final MeterRegistry registry;

    VisionMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void imageEncoded(String id, Duration took) {
        Timer.builder("rkllm.vision.encode.duration").description("Time the image encoder took for one picture")
                .tag("model", id).serviceLevelObjectives(ENCODE_BUCKETS).register(registry).record(took);
        images(id, "encoder");
    }

    @Override
    public void imageFromCache(String id) {
        images(id, "cache");
    }

    @Override
    public void encoderFailed(String id, String message) {
        Counter.builder("rkllm.vision.encoder.failures").description("Image encoder runs that failed")
                .tag("model", id).register(registry).increment();
    }

    private void images(String id, String source) {
        Counter.builder("rkllm.vision.images").description("Pictures given to vision models, by where their"
                        + " embedding came from: the encoder, or the cache (no encoder run)")
                .tag("model", id).tag("source", source).register(registry).increment();
    }
}
