package io.rkllm.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** The bench's look at the machine before it starts: how busy the cores are, and when it warns. */
class MachineLoadTest {
    @Test
    void theBusyShareIsTheTimeNotIdleOverAllTheTime() {
        // user nice system idle iowait irq softirq steal guest guest_nice: 100 ticks pass, 30 idle and 10 iowait
        String before = "cpu  1000 10 500 9000 100 0 20 0 0 0";
        String after = "cpu  1040 10 515 9030 110 0 25 0 7 0"; // guest time, counted in user already
        assertThat(MachineLoad.busyShare(before, after)).isCloseTo(0.6, Offset.offset(1e-9));
        assertThat(MachineLoad.busyShare(before, before)).as("no time passed").isZero();
        // on two cores over a second, this process used 0.4 s of CPU: a fifth of the machine, the others the rest
        MachineLoad.Load load = MachineLoad.load(before, after, 400_000_000L, 1_000_000_000L, 2);
        assertThat(load.own()).isCloseTo(0.2, Offset.offset(1e-9));
        assertThat(load.others()).isCloseTo(0.4, Offset.offset(1e-9));
        assertThat(MachineLoad.load(before, before, 400_000_000L, 1_000_000_000L, 2).others()).as("never below 0")
                .isZero();
        // an older kernel's shorter line: user nice system idle
        assertThat(MachineLoad.busyShare("cpu 10 0 10 80", "cpu 20 0 10 90")).isCloseTo(0.5, Offset.offset(1e-9));
        assertThatThrownBy(() -> MachineLoad.busyShare("intr 1 2 3", after)).isInstanceOf(
                IllegalArgumentException.class);
    }

    @Test
    void itWarnsOnlyWhenAnotherProcessIsAtWork() {
        assertThat(MachineLoad.report(0.04)).isEqualTo("before the bench, with no request running: 4% of the machine's"
                + " CPU busy outside this process");
        assertThat(MachineLoad.report(0.55)).startsWith("before the bench, with no request running: 55% of the")
                .contains("WARNING: another process is at work");
    }

    @Test
    void anotherProcessAtWorkShowsAndThisOnesOwnIsCountedApart() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/stat")),
                "no /proc/stat: the bench measures nothing there");
        int cores = MachineLoad.cores();
        org.junit.jupiter.api.Assumptions.assumeTrue(cores <= 16 && cores == Runtime.getRuntime().availableProcessors(),
                "a loop on each of /proc/stat's cores, all of them ours");
        java.util.List<Process> busy = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < cores; i++) {
                busy.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
            }
            assertThat(MachineLoad.measure(Duration.ofMillis(500)).orElseThrow().others()).as("a loop on every core")
                    .isGreaterThan(MachineLoad.BUSY_WARNING);
        } finally {
            busy.forEach(Process::destroyForcibly);
            for (Process p : busy) {
                p.waitFor();
            }
        }
        // this process's own work (the bench's JVM, a server it started) is counted apart, and left out
        Thread spinner = Thread.ofPlatform().start(() -> {
            long end = System.nanoTime() + 600_000_000L;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        });
        MachineLoad.Load load = MachineLoad.measure(Duration.ofMillis(500)).orElseThrow();
        spinner.join();
        // how much of a core it got depends on what else runs: only that it is counted is sure
        assertThat(load.own()).as("a thread of this process spinning").isGreaterThan(0);
    }
}
