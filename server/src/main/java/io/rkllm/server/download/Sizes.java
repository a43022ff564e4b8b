package io.rkllm.server.download;

import java.util.Locale;

/** Byte counts as people read them: {@code 4.7 GB}, {@code 812 MB}, {@code 64 KB} (powers of 1000, as the Hub shows them). */
public final class Sizes {
    private Sizes() {
    }

    public static String of(long bytes) {
        if (bytes < 1000) {
            return bytes + " B";
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double v = bytes;
        int u = -1;
        while (v >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
    }
}
