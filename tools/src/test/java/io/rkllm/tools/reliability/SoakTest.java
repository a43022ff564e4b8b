package io.rkllm.tools.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.ffm.Abi;
import io.rkllm.server.harness.Health;
import io.rkllm.server.harness.LocalServer;
import io.rkllm.server.harness.RawHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fast variant of {@code rkllm-server soak}: concurrent streaming clients, a share hanging up at
 * random points; afterwards nothing runs or waits, threads are back to their idle count, every
 * completed answer is exact and runs kept FIFO order.
 */
class SoakTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void concurrentClientsThatHangUpLeaveNothingBehind() throws Exception {
        Map<String, String> model = Map.of("prefill_tps", "6000", "decode_tps", "1500", "init_ms", "0",
                "thinking", "0");
        try (LocalServer server = LocalServer.start(dir, Abi.V1_3, Map.of("soak-sim", model), Map.of(),
                Map.of("queue.keep_alive", "1s"))) {
            warmUp(server);
            ProcessStats idle = ProcessStats.self();
            Soak.Report report = new Soak(new Soak.Options("127.0.0.1", server.port(), "soak-sim", 60, 8, 0.4, 0.15,
                    11, Duration.ofSeconds(30), 150, null, server.traceFile("soak-sim"), 250)).run();
            System.out.println("soak: " + report.summary());
            report.failures().forEach(f -> System.out.println("  failure: " + f));
            report.wrongAnswers().forEach(f -> System.out.println("  wrong: " + f));
            report.fifoViolations().forEach(f -> System.out.println("  fifo: " + f));
            assertThat(report.failures()).isEmpty();
            assertThat(report.wrongAnswers()).isEmpty();
            assertThat(report.fifoViolations()).isEmpty();
            assertThat(report.completed()).isPositive();
            assertThat(report.runResults().getOrDefault("error", 0)).isZero();

            JsonNode health = Health.waitIdle(server.port(), Duration.ofSeconds(10));
            assertThat(health.path("status").asText()).isEqualTo("ok");
            ProcessStats after = ProcessStats.waitForThreads(idle, 2, Duration.ofSeconds(10));
            System.out.println("soak: idle " + idle.describe() + "; after " + after.describe());
            assertThat(after.javaThreads()).isLessThanOrEqualTo(idle.javaThreads() + 2);
            // and it still answers
            RawHttp.Response r = RawHttp.exchange("127.0.0.1", server.port(), RawHttp.request("POST",
                    "/v1/chat/completions", Map.of("Content-Type", "application/json"),
                    "{\"model\":\"soak-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:fine]]\"}]}"
                            .getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(10));
            assertThat(JSON.readTree(r.body()).at("/choices/0/message/content").asText()).isEqualTo("fine");
        }
    }

    static void warmUp(LocalServer server) throws Exception {
        RawHttp.exchange("127.0.0.1", server.port(), RawHttp.request("POST", "/v1/models/soak-sim/load",
                Map.of(), new byte[0]), Duration.ofSeconds(30));
    }
}
