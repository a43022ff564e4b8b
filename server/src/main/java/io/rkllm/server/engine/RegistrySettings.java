package io.rkllm.server.engine;

import java.time.Duration;

/**
 * How the registry manages models.
 *
 * @param maxLoaded models loaded at once
 * @param maxQueued requests waiting per model
 * @param idleUnload unload a model unused this long (zero: never)
 * @param loadTimeout longest wait for a model to load, or for room to load it
 * @param embeddingCacheBytes memory for image embeddings kept by picture (0: none kept)
 */
public record RegistrySettings(int maxLoaded, int maxQueued, Duration idleUnload, Duration loadTimeout,
                               long embeddingCacheBytes) {

    public RegistrySettings(int maxLoaded, int maxQueued, Duration idleUnload, Duration loadTimeout) {
        this(maxLoaded, maxQueued, idleUnload, loadTimeout, 0);
    }
}
