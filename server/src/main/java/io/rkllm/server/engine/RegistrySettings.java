package io.rkllm.server.engine;

import java.time.Duration;

/**
 * How the registry manages models.
 *
 * @param maxLoaded models loaded at once
 * @param maxQueued requests waiting per model (a model's {@link ModelLoad#maxQueued()} may say otherwise)
 * @param idleUnload unload a model unused this long (zero: never)
 * @param loadTimeout longest wait for a model to load, or for room to load it
 * @param maxMemoryBytes what the loaded models may take together ({@link ModelLoad#memoryBytes()} per loaded
 *                       handle): a model that would go beyond loads only in place of others; 0 = no limit
 */
public record RegistrySettings(int maxLoaded, int maxQueued, Duration idleUnload, Duration loadTimeout,
                               long maxMemoryBytes) {

    /** Without a memory limit. */
    public RegistrySettings(int maxLoaded, int maxQueued, Duration idleUnload, Duration loadTimeout) {
        this(maxLoaded, maxQueued, idleUnload, loadTimeout, 0);
    }
}
