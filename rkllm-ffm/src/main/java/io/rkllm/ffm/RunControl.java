package io.rkllm.ffm;

/**
 * Cancels one run from any thread, at any time: before the run starts (it then never starts),
 * while it runs ({@code rkllm_abort}, never behind a lock the run holds), or after it ended (no-op).
 * Bound to one run, so a late abort can never stop the next request's run.
 */
public final class RunControl {
    private final Object lock = new Object();
    private boolean aborted;
    /** Aborts the native run while it runs; null before and after it. */
    private Runnable attached;

    /** Requests the abort; returns true when this call was the first request. */
    public boolean abort() {
        Runnable abortRun;
        synchronized (lock) {
            if (aborted) {
                return false;
            }
            aborted = true;
            abortRun = attached;
        }
        if (abortRun != null) {
            abortRun.run();
        }
        return true;
    }

    public boolean isAborted() {
        synchronized (lock) {
            return aborted;
        }
    }

    /**
     * Called by the run before the native call, with what aborts it; false when the run was aborted before it
     * began.
     */
    boolean attach(Runnable abortRun) {
        synchronized (lock) {
            if (aborted) {
                return false;
            }
            attached = abortRun;
            return true;
        }
    }

    void detach() {
        synchronized (lock) {
            attached = null;
        }
    }
}
