package io.rkllm.server.tools.pull;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.download.Digest;
import io.rkllm.server.download.HubFile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The progress bar and the progress lines, on a clock the test moves. */
class ProgressTest {
    private static final HubFile FILE = new HubFile("Q4_K_M/model-Q4_K_M.gguf", 4_000_000_000L,
            Digest.sha256("0".repeat(64)));
    private final AtomicLong nanos = new AtomicLong();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    @Test
    void aBarRedrawnInPlaceWithPercentSpeedAndTimeLeft() {
        ProgressBar bar = new ProgressBar(out, nanos::get);
        bar.transfer(FILE, 0);
        nanos.set(10_000_000_000L);
        bar.transfer(FILE, 1_000_000_000L);
        nanos.set(10_050_000_000L);
        bar.transfer(FILE, 1_001_000_000L); // within a tenth of a second: not drawn
        nanos.set(40_000_000_000L);
        bar.transfer(FILE, 4_000_000_000L);

        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(
                "\r  model-Q4_K_M.gguf [                        ] 0% of 4.0 GB\033[K"
                + "\r  model-Q4_K_M.gguf [######                  ] 25% of 4.0 GB, 100 MB/s, 30s left\033[K"
                + "\r  model-Q4_K_M.gguf [########################] 100% of 4.0 GB, 100 MB/s\033[K\n");
    }

    @Test
    void linesAtEveryTenthWithTheSpeedSinceTheResume() {
        ProgressLines lines = new ProgressLines(out, nanos::get);
        lines.transfer(FILE, 2_000_000_000L); // a resumed download: half of it was there
        nanos.set(20_000_000_000L);
        lines.transfer(FILE, 2_100_000_000L);
        lines.transfer(FILE, 2_400_000_000L);
        lines.transfer(FILE, 2_500_000_000L); // still in the same tenth: no line
        nanos.set(3_600_000_000_000L);
        lines.transfer(FILE, 2_800_000_000L);

        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("""
                  model-Q4_K_M.gguf: 50% of 4.0 GB
                  model-Q4_K_M.gguf: 60% of 4.0 GB, 20 MB/s, 1m20s left
                  model-Q4_K_M.gguf: 70% of 4.0 GB, 222 KB/s, 1h30m left
                """);
    }

    @Test
    void aTransferThatStoppedSaysWhyAndWhenItIsAskedAgain() {
        ProgressBar bar = new ProgressBar(out, nanos::get);
        bar.transfer(FILE, 1_000_000_000L);
        bar.stopped(FILE, 1_000_000_000L, "connection reset", java.time.Duration.ofSeconds(4));
        ProgressLines lines = new ProgressLines(out, nanos::get);
        lines.transfer(FILE, 3_000_000_000L);
        lines.stopped(FILE, 3_000_000_000L, "the Hub answered 503", java.time.Duration.ofMillis(200));

        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(
                "\r  model-Q4_K_M.gguf [######                  ] 25% of 4.0 GB\033[K\n"
                + "  model-Q4_K_M.gguf: stopped at 25% (connection reset); trying again in 4 s\n"
                + "  model-Q4_K_M.gguf: 75% of 4.0 GB\n"
                + "  model-Q4_K_M.gguf: stopped at 75% (the Hub answered 503); trying again in 1 s\n");
    }
}
