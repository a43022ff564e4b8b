package io.rkllm.server.engine;

import java.util.function.BooleanSupplier;

/** A caller's handle on one queued or running generation (see {@link JobHandle}). */
public final class Generation extends JobHandle<GenerationEvent> {
    Generation(BooleanSupplier dequeue) {
        super(dequeue, GenerationEvent.Failed::new);
    }
}
