package io.rkllm.server.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/** Waiting for a server to be idle again: nothing queued or running on any model, by its {@code /health}. */
public final class Health {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Health() {
    }

    /** /health once every model has nothing queued or running; the last /health seen when {@code within} runs out. */
    public static JsonNode waitIdle(int port, Duration within) throws IOException, InterruptedException {
        return waitIdle("127.0.0.1", port, within, Map.of());
    }

    public static JsonNode waitIdle(String host, int port, Duration within, Map<String, String> headers)
            throws IOException, InterruptedException {
        long until = System.nanoTime() + within.toNanos();
        while (true) {
            RawHttp.Response r = RawHttp.exchange(host, port, RawHttp.request("GET", "/health", headers, null),
                    Duration.ofSeconds(10));
            JsonNode health = JSON.readTree(r.body());
            if (isIdle(health) || System.nanoTime() > until) {
                return health;
            }
            Thread.sleep(50);
        }
    }

    public static boolean isIdle(JsonNode health) {
        for (JsonNode m : health.path("loaded_models")) {
            if (m.path("queued").asInt() != 0 || m.path("busy").asBoolean()) {
                return false;
            }
        }
        return health.path("status").asText().equals("ok");
    }
}
