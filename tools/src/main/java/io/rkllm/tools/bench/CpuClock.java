package io.rkllm.tools.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU time, in nanoseconds, of this process, of the calling thread and of a thread found by name: what tells a
 * slower wall clock apart from more work (a thread that computed as long as another but waited for a core).
 */
final class CpuClock {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private CpuClock() {
    }

    static long process() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }

    static long currentThread() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** The CPU time of the live platform thread named {@code name}; -1 when there is none. */
    static long thread(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) {
                return THREADS.getThreadCpuTime(t.threadId());
            }
        }
        return -1;
    }
}
