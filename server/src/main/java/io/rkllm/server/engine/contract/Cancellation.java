package io.rkllm.server.engine.contract;

/**
 * Cancels one job from any thread, at any time: before its native run starts (the run then never starts), while it
 * runs (the backend's abort, bound with {@link #onCancel}), or after it ended (nothing). The engine's word for
 * what the RKLLM binding calls a {@code RunControl}, so that no native type crosses the seam.
 */
public final class Cancellation {
    private final Object lock = new Object();
    private boolean cancelled;
    private Runnable abort;

    /**
     * Fires once: returns true when this call was the first; binds abort the native run in progress. The engine
     * fires it for a job's handle (and a backend's tests for a run of their own).
     */
    public boolean cancel() {
        Runnable bound;
        synchronized (lock) {
            if (cancelled) {
                return false;
            }
            cancelled = true;
            bound = abort;
        }
        if (bound != null) {
            bound.run();
        }
        return true;
    }

    public boolean isCancelled() {
        synchronized (lock) {
            return cancelled;
        }
    }

    /**
     * Binds a native run's abort to this cancellation until the binding is closed; when it has fired already, the
     * abort runs now (before the run, which then does not start). One binding at a time: one job's runs are
     * sequential (jobs running side by side each have their own cancellation).
     */
    public Binding onCancel(Runnable nativeAbort) {
        boolean now;
        synchronized (lock) {
            now = cancelled;
            abort = now ? null : nativeAbort;
        }
        if (now) {
            nativeAbort.run();
        }
        return new Binding();
    }

    /** A bound abort; closing it unbinds it (a late cancel then aborts nothing of the next run). */
    public final class Binding implements AutoCloseable {
        private Binding() {
        }

        @Override
        public void close() {
            synchronized (lock) {
                abort = null;
            }
        }
    }
}
