package io.rkllm.server.backend.llama;

import java.util.concurrent.CountDownLatch;

/**
 * A model's decode loop held on its own thread, so that requests queued meanwhile start together in its next step:
 * how the tests make several conversations share steps without depending on the machine's timing.
 */
final class HeldLoop {
    private HeldLoop() {
    }

    /**
     * Holds the loop in a command until the returned latch opens; returns once the loop runs it, so that the commands
     * counted afterwards ({@link #awaitQueued}) are the test's requests alone (a hold still queued would count).
     */
    static CountDownLatch hold(DecodeLoop loop) {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        loop.execute(() -> {
            holding.countDown();
            await(held);
        });
        await(holding);
        return held;
    }

    /** Waits until {@code n} requests wait in the held loop's queue of commands. */
    static void awaitQueued(DecodeLoop loop, int n) {
        while (loop.pendingCommands() < n) {
            Thread.onSpinWait();
        }
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs a request on a thread of its own, as the engine's workers do. */
    static void thread(Runnable task) {
        Thread.ofPlatform().start(task);
    }
}
