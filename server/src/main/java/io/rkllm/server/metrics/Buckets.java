package io.rkllm.server.metrics;

import java.time.Duration;

/** The histogram buckets the metrics share (Prometheus {@code le} bounds). */
final class Buckets {
    /** A request's latencies: time to first token, queue wait, whole answers. */
    static final Duration[] LATENCY = seconds(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300);

    private Buckets() {
    }

    static Duration[] seconds(double... values) {
        Duration[] out = new Duration[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = Duration.ofNanos(Math.round(values[i] * 1e9));
        }
        return out;
    }
}
