package io.rkllm.server.tools.pull;

import io.rkllm.server.download.HubFile;
import io.rkllm.server.download.Sizes;
import java.util.Locale;
import java.util.function.LongSupplier;

/** One file's transfer as a person reads it: percent, size, speed since it started here, time left. */
final class Rates {
    private final LongSupplier nanos;
    private HubFile file;
    private long startNanos;
    private long startBytes;

    Rates(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /** Whether this report starts another file (and so a new line). */
    boolean start(HubFile f, long completed) {
        if (f.equals(file)) {
            return false;
        }
        file = f;
        startNanos = nanos.getAsLong();
        startBytes = completed;
        return true;
    }

    int percent(long completed) {
        return file.size() == 0 ? 100 : (int) (completed * 100 / file.size());
    }

    /** {@code stopped at 45% (connection reset); trying again in 4 s}: a transfer that waits to be asked again. */
    String stopped(long completed, String why, java.time.Duration wait) {
        return "stopped at " + percent(completed) + "% (" + why + "); trying again in " + Math.max(1, wait.toSeconds())
                + " s";
    }

    /** {@code 45% of 582 MB, 12 MB/s, 1m05s left}, speed and time once there is something to go by. */
    String describe(long completed) {
        StringBuilder s = new StringBuilder().append(percent(completed)).append("% of ").append(Sizes.of(file.size()));
        double seconds = (nanos.getAsLong() - startNanos) / 1e9;
        long moved = completed - startBytes;
        if (seconds > 0 && moved > 0) {
            double perSecond = moved / seconds;
            s.append(", ").append(Sizes.of((long) perSecond)).append("/s");
            if (completed < file.size()) {
                s.append(", ").append(duration((long) ((file.size() - completed) / perSecond))).append(" left");
            }
        }
        return s.toString();
    }

    static String duration(long seconds) {
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", seconds / 3600, seconds % 3600 / 60);
    }
}
