package io.rkllm.server.tools.pull;

import io.rkllm.server.download.HubFile;
import io.rkllm.server.download.PullProgress;
import java.io.PrintStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/** A pull's progress as plain lines (a log, a pipe): one when a file starts, then at every tenth of it. */
final class ProgressLines implements PullProgress {
    private final PrintStream out;
    private final Rates rates;
    private int step = -1;

    ProgressLines(PrintStream out, LongSupplier nanos) {
        this.out = out;
        this.rates = new Rates(nanos);
    }

    @Override
    public void transfer(HubFile file, long completed) {
        if (rates.start(file, completed)) {
            step = -1;
        }
        int now = rates.percent(completed) / 10;
        if (now > step) {
            step = now;
            out.println("  " + file.name() + ": " + rates.describe(completed));
        }
    }

    @Override
    public void stopped(HubFile file, long completed, String why, Duration wait) {
        out.println("  " + file.name() + ": " + rates.stopped(completed, why, wait));
    }

    @Override
    public void verifying(HubFile file) {
        out.println("  checking the bytes of " + file.name() + " already on disk");
    }
}
