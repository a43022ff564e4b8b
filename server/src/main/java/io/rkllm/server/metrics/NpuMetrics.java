package io.rkllm.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NPU's load per core ({@code kernel/debug/rknpu/load}, e.g. {@code NPU load:  Core0: 12%, Core1:  0%,})
 * and its frequency (the {@code cur_freq} of its devfreq device, e.g. {@code class/devfreq/fdab0000.npu}),
 * read below the sysfs root on each scrape. Only what is readable at startup is registered: the debugfs
 * file is readable by root only, and neither exists off a Rockchip board.
 */
public final class NpuMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(NpuMetrics.class);
    private static final Pattern CORE = Pattern.compile("Core(\\d+):\\s*(\\d+(?:\\.\\d+)?)%");
    private static final Pattern SINGLE = Pattern.compile("load:\\s*(\\d+(?:\\.\\d+)?)%");

    private final Path loadFile;

    NpuMetrics(MeterRegistry registry, Path sysfsRoot) {
        this.loadFile = sysfsRoot.resolve("kernel/debug/rknpu/load");
        Map<String, Double> cores = readLoad(loadFile);
        for (String core : cores.keySet()) {
            Gauge.builder("rkllm.npu.load", this, m -> m.coreLoad(core))
                    .description("NPU load of one core, 0 to 1 (rknpu driver's load file)")
                    .baseUnit("ratio").tag("core", core).strongReference(true).register(registry);
        }
        int devices = 0;
        Path devfreq = sysfsRoot.resolve("class/devfreq");
        if (Files.isDirectory(devfreq)) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(devfreq)) {
                for (Path device : entries) {
                    String name = device.getFileName().toString();
                    Path freq = device.resolve("cur_freq");
                    if (name.toLowerCase(Locale.ROOT).contains("npu") && !Double.isNaN(readNumber(freq))) {
                        Gauge.builder("rkllm.npu.frequency", freq, NpuMetrics::readNumber)
                                .description("Current NPU frequency (devfreq cur_freq)").baseUnit("hertz")
                                .tag("device", name).strongReference(true).register(registry);
                        devices++;
                    }
                }
            } catch (IOException e) {
                LOG.debug("cannot list {}: {}", devfreq, e.toString());
            }
        }
        if (cores.isEmpty() || devices == 0) {
            LOG.info("NPU metrics: {}; {}", cores.isEmpty() ? "no load (" + whyNoLoad() + ")" : "per-core load",
                    devices == 0 ? "no frequency (no NPU device in " + devfreq + ")" : "with frequency");
        }
    }

    /** Why the load file gave nothing: the fix differs (another kernel or mount, or another user). */
    private String whyNoLoad() {
        if (Files.isReadable(loadFile)) {
            return loadFile + " has no load figure this server understands";
        }
        Path debugfs = loadFile.getParent().getParent();
        if (Files.exists(loadFile) || (Files.isDirectory(debugfs) && !Files.isExecutable(debugfs))) {
            return loadFile + " is not readable by this user (debugfs: root only)";
        }
        return loadFile + " does not exist: no rknpu driver, or debugfs is not mounted";
    }

    private double coreLoad(String core) {
        return readLoad(loadFile).getOrDefault(core, Double.NaN);
    }

    /** Core number to load (0..1); a driver that prints one number gives core "0". Empty when unreadable. */
    static Map<String, Double> parseLoad(String text) {
        Map<String, Double> cores = new LinkedHashMap<>();
        Matcher m = CORE.matcher(text);
        while (m.find()) {
            cores.put(m.group(1), Double.parseDouble(m.group(2)) / 100.0);
        }
        if (cores.isEmpty()) {
            Matcher single = SINGLE.matcher(text);
            if (single.find()) {
                cores.put("0", Double.parseDouble(single.group(1)) / 100.0);
            }
        }
        return cores;
    }

    private static Map<String, Double> readLoad(Path file) {
        try {
            return parseLoad(Files.readString(file));
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
    }

    private static double readNumber(Path file) {
        try {
            return Double.parseDouble(Files.readString(file).trim());
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
