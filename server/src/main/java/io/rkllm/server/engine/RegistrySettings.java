package io.rkllm.server.engine;

import io.rkllm.server.engine.contract.ModelLoad;
import java.time.Duration;

/**
 * How the registry manages models.
 *
 * @param maxLoaded models loaded at once
 * @param maxQueued requests waiting per model (a model's {@link ModelLoad#maxQueued()} may say otherwise)
 * @param idleUnload unload a model unused this long (zero: never)
 * @param loadTimeout longest wait for a model to load, or for room to load it
 * @param memoryCheck check that a model fits before loading it ({@link MemoryBudget}): auto (on when a backend's
 *                    failed load takes the process down: RKLLM runtime 1.3), on or off
 * @param memoryBudgetMb the memory the models may take together; 0 = what the machine has available
 * @param imageEmbeddingCacheBytes memory for image embeddings kept by picture (0: none kept)
 * @param maxMemoryBytes what the loaded models may keep together ({@code models.max_memory}, counted with
 *                       {@link ModelLoad#memoryMb()} per loaded handle): a model that would go beyond loads only in
 *                       place of others, on any runtime; 0 = no limit
 */
public record RegistrySettings(int maxLoaded, int maxQueued, Duration idleUnload, Duration loadTimeout,
                               String memoryCheck, int memoryBudgetMb, long imageEmbeddingCacheBytes,
                               long maxMemoryBytes) {

    /** The same with the memory check as {@code auto} decides and no limit on what stays loaded. */
    public RegistrySettings(int maxLoaded, int maxQueued, Duration idleUnload, Duration loadTimeout) {
        this(maxLoaded, maxQueued, idleUnload, loadTimeout, "auto", 0, 0, 0);
    }
}
