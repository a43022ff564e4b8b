package io.rkllm.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/** Every HTTP request by route (the matched pattern, never the raw path), method and status. */
public final class HttpMetrics {
    /** The route label of a request that matched no route. */
    public static final String UNMATCHED = "unmatched";

    private final MeterRegistry registry;

    HttpMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void request(String method, String route, int status, Duration took) {
        Timer.builder("rkllm.http.requests")
                .description("HTTP requests by route, method and status, with their duration")
                .tag("method", method).tag("route", route).tag("status", Integer.toString(status))
                .register(registry).record(took);
    }
}
