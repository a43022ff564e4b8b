package io.rkllm.server.backend.llama;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How many threads llama.cpp's decode gets by default: the big cores of a big.LITTLE board (the four Cortex-A76 of an
 * RK3588, not its A55s, which would hold the A76s back: ggml's threads wait for each other at every operation), found
 * from each core's {@code cpu_capacity} (or, without it, its highest frequency); every core elsewhere.
 */
final class BigCores {
    private BigCores() {
    }

    static int count() {
        return count(Path.of("/sys/devices/system/cpu"), Runtime.getRuntime().availableProcessors());
    }

    /**
     * The cores of about the largest capacity (else the highest maximum frequency) under {@code cpus}, else
     * {@code all}.
     */
    static int count(Path cpus, int all) {
        List<Long> capacity = new ArrayList<>();
        List<Long> frequency = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(cpus, "cpu[0-9]*")) {
            for (Path cpu : dirs) {
                read(cpu.resolve("cpu_capacity")).ifPresent(capacity::add);
                read(cpu.resolve("cpufreq/cpuinfo_max_freq")).ifPresent(frequency::add);
            }
        } catch (IOException | RuntimeException e) {
            return Math.max(1, all);
        }
        List<Long> values = !capacity.isEmpty() ? capacity : frequency;
        if (values.isEmpty()) {
            return Math.max(1, all);
        }
        long top = values.stream().mapToLong(Long::longValue).max().orElse(0);
        // within a tenth of the fastest: the RK3588's two A76 clusters may differ a little in their top frequency
        int big = (int) values.stream().filter(v -> v * 10 >= top * 9).count();
        return Math.max(1, Math.min(big, all));
    }

    private static java.util.Optional<Long> read(Path file) {
        try {
            return java.util.Optional.of(Long.parseLong(Files.readString(file).strip()));
        } catch (IOException | NumberFormatException e) {
            return java.util.Optional.empty();
        }
    }
}
