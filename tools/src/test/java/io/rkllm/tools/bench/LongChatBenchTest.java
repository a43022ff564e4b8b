package io.rkllm.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.it.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The long-chat replay: its script, its figures, and one short run against a server on a small context. */
class LongChatBenchTest {
    @TempDir
    Path dir;

    @Test
    void theScriptIsTheSameEveryRunWithVariedLengths() {
        LongChatScript a = LongChatScript.generate(40, LongChatScript.SEED);
        assertThat(LongChatScript.generate(40, LongChatScript.SEED)).isEqualTo(a);
        assertThat(a.turns()).hasSize(40).allSatisfy(t -> assertThat(t.message())
                .endsWith("[[tokens:" + t.answerTokens() + "]]"));
        double mean = a.turns().stream().mapToInt(t -> SimTokenCount.count(t.message())).average().orElseThrow();
        assertThat(mean).isBetween(150.0, 200.0);
        assertThat(a.turns().stream().mapToInt(t -> SimTokenCount.count(t.message())).max().orElseThrow())
                .isGreaterThan(280);
    }

    @Test
    void theSummaryCountsResendsAndTheLongestRunOfThem() {
        List<LongChatBench.Turn> turns = List.of(
                new LongChatBench.Turn(1, 10, 5, 20, 0, 0, 20, 20, 100),
                new LongChatBench.Turn(2, 10, 5, 300, 10, 2, 12, 310, 900),
                new LongChatBench.Turn(3, 10, 5, 280, 10, 4, 12, 290, 800),
                new LongChatBench.Turn(4, 10, 5, 12, 300, 4, 12, 312, 50));
        LongChatBench.Result r = new LongChatBench.Result(turns, 1024);
        assertThat(r.resends()).isEqualTo(2);
        assertThat(r.longestResendRun()).isEqualTo(2);
        assertThat(r.firstTrimmed()).isEqualTo(2);
        assertThat(LongChatBench.summary(r)).contains("Prefill 612 tokens against a minimum of 56: **10.93x**")
                .contains("at most 2 in a row").contains("First trimmed turn: turn 2;");
    }

    @Test
    void aReplayOnASmallContextReportsTheTrimsTheServerMade() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("max_context_limit", "1024"))
                .sidecar("m", "context_length: 1024\nfamily: qwen2.5\n").start()) {
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            LongChatBench.Result r = new LongChatBench(URI.create(server.url("")), "m",
                    new PrintStream(log, true, StandardCharsets.UTF_8)).run(LongChatScript.generate(12, 3));
            assertThat(r.turns()).hasSize(12);
            assertThat(r.contextLength()).isEqualTo(1024);
            assertThat(r.firstTrimmed()).as("12 turns outgrow 1,024 tokens").isPositive();
            assertThat(r.turns()).allSatisfy(t -> {
                assertThat(t.answer()).isPositive();
                assertThat(t.prefilled()).isGreaterThanOrEqualTo(t.minimum());
            });
            assertThat(r.longestResendRun()).isLessThanOrEqualTo(1);
            assertThat(log.toString(StandardCharsets.UTF_8)).contains("turn 12");
            assertThat(LongChatBench.markdown("t", r)).contains("| 12 |").contains("**total**");
        }
    }
}
