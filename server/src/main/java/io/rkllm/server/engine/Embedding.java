package io.rkllm.server.engine;

import java.util.function.BooleanSupplier;

/**
 * A caller's handle on one queued or running embedding request (see {@link JobHandle}); cancelling a running one
 * aborts its current run and skips the prompts after it.
 */
public final class Embedding extends JobHandle<EmbeddingEvent> {
    Embedding(BooleanSupplier dequeue) {
        super(dequeue, EmbeddingEvent.Failed::new);
    }
}
