package io.rkllm.tools.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.it.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thousands of malformed and mutated requests to every route: each gets a 4xx in its API's shape
 * (or a 2xx when it turned out valid), none a 5xx or silence, and the server serves normally after.
 * The same fuzzer runs longer as {@code rkllm-server fuzz} (docs/reliability.md).
 */
class FuzzTest {
    static final int CASES = Integer.getInteger("fuzz.cases", 1500);
    static final long SEED = Long.getLong("fuzz.seed", 20260401L);

    @TempDir
    Path dir;

    @Test
    void everyRequestGetsA4xxInItsApisShapeOrAValidAnswer() throws Exception {
        try (TestServer server = TestServer.in(dir)
                .model("qwen3-1.7b-sim", Map.of("thinking", "1"))
                .sidecar("qwen3-1.7b-sim", "family: qwen3\ncapabilities: {thinking: true, tools: true}\naliases: [qwen3]\n")
                .model("small-sim", Map.of("reply_tokens", "12"))
                .model("embed-sim", Map.of("kind", "embedding", "embd_size", "8"))
                .sidecar("embed-sim", "kind: embedding\nfamily: qwen3-embedding\n")
                .set("limits.max_body_mb", "1")
                .set("models.max_loaded", "1")
                .start()) {
            Fuzzer.Result result = new Fuzzer(new Fuzzer.Options("127.0.0.1", server.port(), SEED, CASES, 0,
                    Duration.ofSeconds(20), 1, List.of("qwen3-1.7b-sim", "small-sim", "embed-sim"), null, 1_200_000)).run();
            System.out.println("fuzz: " + result.summary());
            result.failures().stream().limit(30).forEach(f -> System.out.println("  " + f));
            assertThat(result.failures()).isEmpty();
            assertThat(result.healthyAfter()).as(result.afterProblem()).isTrue();
        }
    }
}
