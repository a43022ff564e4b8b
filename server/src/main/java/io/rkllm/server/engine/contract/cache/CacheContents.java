package io.rkllm.server.engine.contract.cache;

import java.util.List;

/**
 * What a model's KV caches hold now, in the words every backend keeps them in, and the trims of recent
 * conversations that lost their slot: what the pipeline reads to decide which messages a request leaves out.
 *
 * @param slots the conversation each slot holds (slots holding nothing known are not listed)
 * @param earlier conversations reduced to their trim ({@link CachedConversation#trimOnly()})
 */
public record CacheContents(List<CachedConversation> slots, List<CachedConversation> earlier) {
    /** A model that is not loaded, or a request that does not use the caches. */
    public static final CacheContents NOTHING = new CacheContents(List.of(), List.of());

    public CacheContents {
        slots = List.copyOf(slots);
        earlier = List.copyOf(earlier);
    }
}
