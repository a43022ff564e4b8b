package io.rkllm.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench versus}: the workload against two real servers (the other one a server of ours too, on the tests' tiny
 * GGUF model: any OpenAI-compatible URL does), and the table it prints.
 */
class SideBySideTest {
    @TempDir
    Path dir;

    @Test
    void bothServersGetEveryWorkloadInTurnsAndTheTableSaysTheRatios() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (GgufBenchServer other = GgufBenchServer.start(GgufBenchServer.TINY, new ConfigLoader(dir.resolve("o")),
                Map.of(), Map.of("engines.llama.threads", "1"))) {
            code = new BenchCommand(Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)).run(CommandLine.parse(Set.of("bench"),
                    new BenchTool().valueOptions(), "bench", "versus", "--other", other.url(), "--other-label",
                    "llama-server", "--gguf", "tiny", "--rounds", "1", "--tokens", "8", "--prompt-words", "20",
                    "--engines.llama.threads=1"), new ConfigLoader(dir));
        }

        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        if (java.nio.file.Files.isReadable(Path.of("/proc/stat"))) {
            assertThat(text).containsPattern("\\nbefore the bench, with no request running: [0-9]+% of the machine's CPU"
                    + " busy outside this process");
        }
        assertThat(text.lines().filter(l -> l.startsWith("round 1, ")).map(l -> l.substring(0, l.indexOf(':'))))
                .containsExactly("round 1, llama-server", "round 1, rkllm-server", "round 1, rkllm-server",
                        "round 1, llama-server");
        assertThat(text).contains("| 1 rounds, llama-server and rkllm-server in turns A B B A for each part |"
                + " llama-server |"
                + " rkllm-server | ratio | better |");
        for (String row : List.of("| one chat, decode tokens/s | ", "| its follow-up, first token (s) | ",
                "| a long prompt (20 words), prefill tokens/s | ",
                "| four chats at once, decode tokens/s while all four decode | ",
                "| four chats at once, all their tokens over the wall time (tokens/s) | ",
                "| four long prompts together, the last first token (s) | ",
                "| the same answers every turn (one chat; four at once) | ")) {
            assertThat(text).contains(row);
        }
        assertThat(text).containsPattern("\\| one chat, decode tokens/s \\| [0-9.]+ \\([0-9.]+-[0-9.]+\\) \\|"
                + " [0-9.]+ \\([0-9.]+-[0-9.]+\\) \\| [0-9.]+x \\| higher \\|");
    }

    @Test
    void theTwoSamplesOfAPairSendTheSameTextsAndNoOtherTurnDoes() {
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int round = 0; round < 3; round++) {
            for (SideBySide.Part part : SideBySide.Part.values()) {
                int firstPair = SideBySide.turn(round, part, 0);
                int secondPair = SideBySide.turn(round, part, 2);
                assertThat(SideBySide.turn(round, part, 1)).isEqualTo(firstPair);
                assertThat(SideBySide.turn(round, part, 3)).isEqualTo(secondPair);
                assertThat(seen.add(firstPair) && seen.add(secondPair)).as("round %d, %s", round, part).isTrue();
            }
        }
    }

    @Test
    void theDecodeRateWhileAllDecodeCountsOnlyTheTimeAllOfThemDo() {
        long s = 1_000_000_000L;
        TimedChat a = new TimedChat("a", 0, new long[] {1 * s, 2 * s, 3 * s, 4 * s}, 10, 4);
        TimedChat b = new TimedChat("b", 0, new long[] {2 * s, 3 * s, 5 * s}, 10, 5);
        // both decode from 2 s to 4 s: a's 3 s and 4 s chunks (a token each), b's 3 s chunk (two tokens: b wrote 5
        // tokens in 3 chunks)
        assertThat(SideBySide.whileAllDecode(List.of(a, b))).isEqualTo(2.0);
        TimedChat after = new TimedChat("c", 0, new long[] {5 * s, 6 * s}, 10, 2);
        assertThat(SideBySide.whileAllDecode(List.of(a, after))).as("never together").isNaN();
        assertThat(a.decodeRate()).isEqualTo(1.0);
        assertThat(a.firstTokenSeconds()).isEqualTo(1.0);
    }

    @Test
    void cellsAreTheMedianAndTheRange() {
        assertThat(SideBySideTable.cell(List.of(3.0, 1.0, 2.0, 10.0), 1)).isEqualTo("2.5 (1.0-10.0)");
        assertThat(SideBySideTable.cell(List.of(2.0), 2)).isEqualTo("2.00");
        assertThat(SideBySideTable.cell(List.of(Double.NaN), 2)).isEqualTo("-");
        // a round's ratio: the geometric mean of its two pairs' ratios (each server's samples i and i+1 are its
        // round's), so that a sample's place in A B B A, each place once on each side, cancels; a drift between
        // rounds moves no ratio
        assertThat(SideBySideTable.roundRatios(List.of(110.0, 50.0, 60.0, 30.0), List.of(100.0, 55.0, 50.0, 30.0)))
                .satisfiesExactly(r -> assertThat(r).isCloseTo(Math.sqrt(1.1 * 50.0 / 55.0),
                                org.assertj.core.data.Offset.offset(1e-9)),
                        r -> assertThat(r).isCloseTo(Math.sqrt(1.2), org.assertj.core.data.Offset.offset(1e-9)));
        assertThat(SideBySideTable.roundRatios(List.of(2.0, 8.0, 2.0, Double.NaN, 1.0),
                List.of(1.0, 1.0, 1.0, 1.0, 1.0)))
                .as("a round with a sample missing, and a round not complete, left out").containsExactly(4.0);
        // from four rounds on, the middle half of the ratios beside their median (between the halves' medians)
        assertThat(SideBySideTable.ratioCell(List.of(1.1, 0.9, 1.0, 0.8, 1.0, 1.2))).isEqualTo("1.00x (0.90-1.10)");
        assertThat(SideBySideTable.ratioCell(List.of(1.1, 0.9, 1.0, 0.8, 1.0))).isEqualTo("1.00x (0.85-1.05)");
        assertThat(SideBySideTable.ratioCell(List.of(0.9, 1.0, 1.1))).isEqualTo("1.00x");
        assertThat(SideBySideTable.ratioCell(List.of())).isEmpty();
        SideBySide.Plan plan = new SideBySide.Plan(1, 8, 5);
        assertThat(SideBySide.longPrompt(42, 3, 1, plan)).startsWith("Run 2a, turn 3, text 1.")
                .isEqualTo(SideBySide.longPrompt(42, 3, 1, plan))
                .isNotEqualTo(SideBySide.longPrompt(42, 4, 1, plan))
                .isNotEqualTo(SideBySide.longPrompt(43, 3, 1, plan));
    }
}
