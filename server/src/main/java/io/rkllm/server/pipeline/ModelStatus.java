package io.rkllm.server.pipeline;

import java.time.Instant;

/**
 * A model's state in the engine, for the routes that report it.
 *
 * @param ready loaded and serving (false while it loads)
 * @param busy a request is queued or running
 * @param queued requests waiting (places reserved or queued, not running)
 * @param running jobs running now: up to {@code parallel} generations, or one embedding request
 * @param parallel how many generations the model runs at once (1 on RKLLM; 1 while it loads)
 * @param slots handles loaded so far (each a KV cache; a second one loads when a second conversation needs it)
 */
public record ModelStatus(String id, boolean ready, boolean busy, int queued, int running, int parallel,
                          Instant lastUsed, int slots) {
}
