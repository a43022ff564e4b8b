package io.rkllm.server.engine;

import java.util.function.BooleanSupplier;

/**
 * Who goes first when a chat model and an embedding model are loaded side by side: generations (chats, and Open
 * WebUI's background tasks) before embeddings. One for every worker of a registry. An embedding run starts only when
 * no generation waits or runs on any model; a generation waits at most for the one embedding run in progress (a
 * document chunk takes a few hundred milliseconds). Runs never overlap: they share one machine's accelerator (the
 * NPU, which runtimes before 1.2.2 cannot even give two handles at once, or the CPU's cores), so a chat running
 * beside a flood of embeddings would only get slower.
 */
final class GenerationsFirst {
    /** How often a waiting embedding run checks whether its request was cancelled meanwhile. */
    private static final long CANCEL_CHECK_MILLIS = 200;

    /** Generations queued or running, on every model. */
    private int generations;
    private boolean embeddingRunning;

    /** A generation joined a queue; close the ticket once it has left it for good (ran, cancelled, failed). */
    Ticket generationQueued() {
        synchronized (this) {
            generations++;
        }
        return new Ticket();
    }

    /** Before a generation's run: waits for the embedding run in progress, if there is one. */
    synchronized void awaitGenerationTurn() throws InterruptedException {
        while (embeddingRunning) {
            wait();
        }
    }

    /**
     * Before an embedding run: waits until no generation waits or runs anywhere, then holds the NPU until
     * {@link #endEmbedding()}. False (and nothing held) when {@code cancelled} became true while waiting.
     */
    synchronized boolean beginEmbedding(BooleanSupplier cancelled) throws InterruptedException {
        while (generations > 0 || embeddingRunning) {
            if (cancelled.getAsBoolean()) {
                return false;
            }
            wait(CANCEL_CHECK_MILLIS);
        }
        embeddingRunning = true;
        return true;
    }

    synchronized void endEmbedding() {
        embeddingRunning = false;
        notifyAll();
    }

    /** Generations queued or running now (for tests and logs). */
    synchronized int generations() {
        return generations;
    }

    /** One generation's place; closing it more than once is harmless. */
    final class Ticket {
        private boolean closed;

        void close() {
            synchronized (GenerationsFirst.this) {
                if (!closed) {
                    closed = true;
                    generations--;
                    GenerationsFirst.this.notifyAll();
                }
            }
        }
    }
}
