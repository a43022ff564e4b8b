package io.rkllm.server.tools.pull;

import io.rkllm.server.download.HubFile;
import io.rkllm.server.download.PullProgress;
import java.io.PrintStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/** A pull's progress on a terminal: one line per file, redrawn in place at most ten times a second. */
final class ProgressBar implements PullProgress {
    private static final int WIDTH = 24;
    private static final long REDRAW = 100_000_000L;

    private final PrintStream out;
    private final LongSupplier nanos;
    private final Rates rates;
    private long drawn;
    /** Whether the current line has been drawn at all. */
    private boolean open;

    ProgressBar(PrintStream out, LongSupplier nanos) {
        this.out = out;
        this.nanos = nanos;
        this.rates = new Rates(nanos);
    }

    @Override
    public void transfer(HubFile file, long completed) {
        if (rates.start(file, completed)) {
            end();
        }
        long now = nanos.getAsLong();
        if (open && now - drawn < REDRAW && completed < file.size()) {
            return;
        }
        drawn = now;
        int filled = (int) ((long) WIDTH * rates.percent(completed) / 100);
        out.print("\r  " + file.name() + " [" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] "
                + rates.describe(completed) + "\033[K");
        out.flush();
        open = true;
        if (completed >= file.size()) {
            end();
        }
    }

    @Override
    public void stopped(HubFile file, long completed, String why, Duration wait) {
        end();
        out.println("  " + file.name() + ": " + rates.stopped(completed, why, wait));
    }

    @Override
    public void verifying(HubFile file) {
        end();
        out.println("  checking the bytes of " + file.name() + " already on disk");
    }

    /** Ends the line being redrawn. */
    void end() {
        if (open) {
            out.println();
            open = false;
        }
    }
}
