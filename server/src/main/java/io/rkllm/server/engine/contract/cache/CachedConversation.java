package io.rkllm.server.engine.contract.cache;

import java.util.List;

/**
 * The conversation a slot's KV cache holds, as message keys (the pipeline's normalised identities of messages):
 * the system prompt, the history messages left out to fit the context (which, and a digest of them, so a request
 * with the same full history still matches), and the messages it holds in order, assistant replies as they were
 * generated. Every backend keeps its slots' conversations in these words, whatever its cache holds natively
 * (RKLLM: turns appended with keep_history; llama.cpp: tokens), so that the pipeline can decide what fits the
 * context without knowing which backend runs. Immutable: the worker publishes it, the pipeline reads it from the
 * request's thread.
 *
 * @param tokens the cache size in tokens by the backend's bookkeeping
 * @param tools the tools set on the handle when the conversation was cached (empty string for none)
 */
public record CachedConversation(String systemPrompt, Trim trim, String leftOutDigest, List<String> turns,
                                 int tokens, String tools) {

    public CachedConversation {
        turns = List.copyOf(turns);
    }

    /** Whether the request's history (all messages before its new ones) is exactly what this cache holds. */
    public boolean holds(String system, List<String> history, String requestTools) {
        if (!systemPrompt.equals(system) || !tools.equals(requestTools)
                || history.size() != trim.count() + turns.size() || !trim.appliesTo(history.size())) {
            return false;
        }
        return Keys.digest(trim.leftOut(history)).equals(leftOutDigest) && trim.kept(history).equals(turns);
    }

    /**
     * Whether the request is this conversation, edited or regenerated after what was left out of it: the same
     * system prompt, the same messages left out and the same pinned question, so the same trim applies.
     */
    public boolean sharesLeftOut(String system, List<String> history) {
        int pinned = trim.pinTo() - trim.pinFrom();
        return trim.count() > 0 && systemPrompt.equals(system) && trim.appliesTo(history.size())
                && turns.size() >= pinned
                && Keys.digest(trim.leftOut(history)).equals(leftOutDigest)
                && history.subList(trim.pinFrom(), trim.pinTo()).equals(turns.subList(0, pinned));
    }

    /** Only what {@link #sharesLeftOut} needs: the system prompt, the trim, the digest, the pinned question. */
    public CachedConversation trimOnly() {
        return new CachedConversation(systemPrompt, trim, leftOutDigest,
                turns.subList(0, Math.min(turns.size(), trim.pinTo() - trim.pinFrom())), 0, "");
    }
}
