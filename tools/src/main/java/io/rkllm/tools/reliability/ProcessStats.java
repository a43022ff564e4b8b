package io.rkllm.tools.reliability;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * A process's threads and memory: the kernel's view ({@code /proc/PID/status}: threads, VmRSS) and,
 * for this JVM, its platform threads, direct buffers and, when the JVM runs with
 * {@code -XX:NativeMemoryTracking=summary}, NMT's committed total and malloc'd bytes (FFM arenas live there).
 */
public record ProcessStats(long osThreads, long javaThreads, long rssKb, long directBufferBytes,
                           OptionalLong nmtCommittedKb, OptionalLong nmtMallocKb) {
    private static final Pattern TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
    private static final Pattern MALLOC = Pattern.compile("malloc: (\\d+)KB");

    /** This JVM, after a garbage collection so that freed memory is not counted. */
    public static ProcessStats self() {
        System.gc();
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            direct += Math.max(0, pool.getMemoryUsed());
        }
        long[] status = status(Path.of("/proc/self/status"));
        String nmt = nmtSummary();
        return new ProcessStats(status[0], Thread.getAllStackTraces().size(), status[1], direct,
                find(TOTAL, nmt, 2), find(MALLOC, nmt, 1));
    }

    /** Another process: only what /proc tells. */
    public static ProcessStats of(long pid) {
        long[] status = status(Path.of("/proc", Long.toString(pid), "status"));
        return new ProcessStats(status[0], -1, status[1], -1, OptionalLong.empty(), OptionalLong.empty());
    }

    private static long[] status(Path file) {
        long threads = -1;
        long rss = -1;
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith("Threads:")) {
                    threads = Long.parseLong(line.substring(8).strip());
                } else if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.substring(6).replace("kB", "").strip());
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux, or the process is gone
        }
        return new long[] {threads, rss};
    }

    private static String nmtSummary() {
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
            return out == null ? "" : out.toString();
        } catch (Exception e) {
            return "";
        }
    }

    private static OptionalLong find(Pattern pattern, String text, int group) {
        Matcher m = pattern.matcher(text);
        return m.find() ? OptionalLong.of(Long.parseLong(m.group(group))) : OptionalLong.empty();
    }

    public String describe() {
        StringBuilder s = new StringBuilder();
        s.append("threads ").append(osThreads);
        if (javaThreads >= 0) {
            s.append(" (").append(javaThreads).append(" platform Java threads)");
        }
        s.append(", RSS ").append(rssKb / 1024).append(" MB");
        if (directBufferBytes >= 0) {
            s.append(", direct buffers ").append(directBufferBytes / 1024).append(" KB");
        }
        nmtCommittedKb.ifPresent(v -> s.append(", NMT committed ").append(v / 1024).append(" MB"));
        nmtMallocKb.ifPresent(v -> s.append(", NMT malloc ").append(v / 1024).append(" MB"));
        return s.toString();
    }

    /** This process's stats once its platform threads are back to {@code idle}'s count (+ {@code slack}), or at the deadline. */
    public static ProcessStats waitForThreads(ProcessStats idle, int slack, Duration within) throws InterruptedException {
        long until = System.nanoTime() + within.toNanos();
        while (true) {
            ProcessStats now = ProcessStats.self();
            if (now.javaThreads() <= idle.javaThreads() + slack || System.nanoTime() > until) {
                return now;
            }
            Thread.sleep(100);
        }
    }
}
