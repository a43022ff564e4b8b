package io.rkllm.server.pipeline;

import java.util.List;

/**
 * The conversation a slot's KV cache holds, as message keys ({@link MessageKeys}): the system
 * prompt, the history messages trimmed off its start (their count and a digest, so a request with
 * the same full history still matches), and the messages it holds in order, assistant replies as
 * they were generated.
 *
 * @param tokens the cache size in tokens by our bookkeeping (checked against rkllm_get_kv_cache_size)
 * @param tools the tools set on the handle when the conversation was cached (empty string for none)
 */
record CachedConversation(String systemPrompt, int droppedCount, String droppedDigest, List<String> turns,
                          int tokens, String tools) {

    CachedConversation {
        turns = List.copyOf(turns);
    }

    /** Whether the request's history (all messages before its new ones) is exactly what this cache holds. */
    boolean holds(String system, List<String> history, String requestTools) {
        if (!systemPrompt.equals(system) || !tools.equals(requestTools) || history.size() != droppedCount + turns.size()) {
            return false;
        }
        return MessageKeys.digest(history.subList(0, droppedCount)).equals(droppedDigest)
                && history.subList(droppedCount, history.size()).equals(turns);
    }
}
