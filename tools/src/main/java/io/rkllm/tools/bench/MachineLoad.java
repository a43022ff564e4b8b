package io.rkllm.tools.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * How busy the machine's cores are while nothing of the bench runs ({@code /proc/stat}'s first line, read twice): a
 * side-by-side bench compares two servers that share the cores, and a third process at work (a server of an earlier
 * run left alive, a build) takes its share from whichever has its turn, so the bench says so before it starts.
 */
final class MachineLoad {
    /** Above this share of all the cores busy with the servers idle, the bench warns. */
    static final double BUSY_WARNING = 0.2;

    private MachineLoad() {
    }

    /**
     * The share of all the cores' time that was not idle between two readings of {@code /proc/stat}'s aggregate
     * {@code cpu} line (user nice system idle iowait irq softirq steal ...; idle and iowait count as idle).
     */
    static double busyShare(String before, String after) {
        long[] a = fields(before);
        long[] b = fields(after);
        long total = 0;
        // guest and guest_nice, the fields after steal, are counted in user and nice already
        for (int i = 0; i < Math.min(8, Math.min(a.length, b.length)); i++) {
            total += b[i] - a[i];
        }
        long idle = (b[3] - a[3]) + (b.length > 4 && a.length > 4 ? b[4] - a[4] : 0);
        return total <= 0 ? 0 : (total - idle) / (double) total;
    }

    /**
     * Over a window, the share of all the cores' time that was busy, and the share this process took of it (the
     * bench's JVM, and the server when the bench started it here: still compiling its code).
     */
    record Load(double all, double own) {
        /** What other processes took: what the bench warns of. */
        double others() {
            return Math.max(0, all - own);
        }
    }

    /**
     * The load between two readings of {@code /proc/stat}'s {@code cpu} line, this process having used {@code ownCpu}
     * nanoseconds of CPU in the {@code elapsed} nanoseconds between them, on {@code cores} cores.
     */
    static Load load(String before, String after, long ownCpu, long elapsed, int cores) {
        return new Load(busyShare(before, after), elapsed <= 0 ? 0 : ownCpu / ((double) elapsed * cores));
    }

    /** The machine's load over {@code window}; empty where there is no {@code /proc/stat} (not Linux). */
    static Optional<Load> measure(Duration window) throws InterruptedException {
        Path stat = Path.of("/proc/stat");
        try {
            long self = CpuClock.process();
            long start = System.nanoTime();
            String before = Files.readAllLines(stat).getFirst();
            Thread.sleep(window);
            List<String> after = Files.readAllLines(stat);
            long ownCpu = self < 0 ? 0 : CpuClock.process() - self;
            return Optional.of(load(before, after.getFirst(), ownCpu, System.nanoTime() - start, cores(after)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** What the bench prints of the share measured: the figure, and a warning when it is more than idle servers use. */
    static String report(double busy) {
        String line = String.format(java.util.Locale.ROOT, "before the bench, with no request running: %.0f%% of the"
                + " machine's CPU busy outside this process", busy * 100);
        return busy <= BUSY_WARNING ? line : line + ". WARNING: another process is at work (a server of an earlier run"
                + " still alive? a build?): it takes its share from whichever server has its turn, and the ratios move;"
                + " stop it and run the bench again";
    }

    /**
     * The cores {@code /proc/stat} counts ({@code cpu0}, {@code cpu1}...): its first line's total is theirs, which in
     * a container can be more than this process may use.
     */
    static int cores() throws IOException {
        return cores(Files.readAllLines(Path.of("/proc/stat")));
    }

    private static int cores(List<String> stat) {
        return (int) Math.max(1, stat.stream().filter(l -> l.matches("cpu[0-9]+\\s.*")).count());
    }

    private static long[] fields(String cpuLine) {
        String[] parts = cpuLine.trim().split("\\s+");
        if (parts.length < 5 || !parts[0].equals("cpu")) {
            throw new IllegalArgumentException("not /proc/stat's cpu line: " + cpuLine);
        }
        return Arrays.stream(parts, 1, parts.length).mapToLong(Long::parseLong).toArray();
    }
}
