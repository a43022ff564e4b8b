package io.rkllm.server.it;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.opentest4j.AssertionFailedError;

/**
 * A bounded poll, for state that announces no event (the runtime's trace file, the model list):
 * asks every 10 ms until the answer satisfies the condition, and fails the test at the deadline.
 */
final class Poll {
    private Poll() {
    }

    static <T> T until(String what, Duration limit, Callable<T> probe, Predicate<? super T> done) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        T last;
        while (true) {
            last = probe.call();
            if (done.test(last)) {
                return last;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionFailedError("waited " + limit.toMillis() + " ms for " + what + "; last: " + last);
            }
            Thread.sleep(10);
        }
    }

    /** Polls for a value that is present. */
    static <T> T forValue(String what, Duration limit, Callable<Optional<T>> probe) throws Exception {
        return until(what, limit, probe, Optional::isPresent).orElseThrow();
    }
}
