package io.rkllm.server.backend.rkllm;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The NPU of the process. An image encoder must never run while a language model does: running both at once can
 * hang a real NPU until a reboot (shared/docs/vision-embeddings-research.md, A). Runs of language models share the
 * lock (several loaded text models run side by side, as before); an encoder run takes it alone, waiting for the
 * runs in progress to end, and runs that come after it wait for it (fair order).
 */
final class NpuLock {
    /** How often a waiting encoder run looks whether its request was cancelled. */
    private static final long POLL_MILLIS = 50;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);

    /** {@code run} as a language model run: beside other language model runs, never beside an encoder run. */
    public <T> T generating(Supplier<T> run) {
        lock.readLock().lock();
        try {
            return run.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Takes the NPU alone for an encoder run; false (and nothing taken) once {@code cancelled} says so while
     * waiting. Release with {@link #encoded()}.
     */
    public boolean encoding(BooleanSupplier cancelled) {
        while (true) {
            if (cancelled.getAsBoolean()) {
                return false;
            }
            try {
                if (lock.writeLock().tryLock(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    public void encoded() {
        lock.writeLock().unlock();
    }
}
