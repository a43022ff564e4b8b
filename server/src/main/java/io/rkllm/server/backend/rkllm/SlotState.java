package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.cache.CachedConversation;
import io.rkllm.server.engine.contract.PromptTemplate;
import java.util.Optional;

/**
 * What is known about one slot (handle): the chat template and tools last set on it and the conversation its KV
 * cache holds. Written only on the model's worker thread; the conversation is also read by requests being prepared
 * (to decide what to trim), so it is published through a volatile field.
 */
final class SlotState {
    private PromptTemplate template;
    private String tools;
    private volatile CachedConversation conversation;
    private long lastUsed;
    private String conversationKey = "";

    /** What the cache policy decides on: a snapshot. */
    RkllmCachePolicy.SlotView view() {
        return new RkllmCachePolicy.SlotView(Optional.ofNullable(template), Optional.ofNullable(tools),
                Optional.ofNullable(conversation), lastUsed, conversationKey);
    }

    void template(PromptTemplate value) {
        template = value;
    }

    void tools(String value) {
        tools = value;
    }

    /** The conversation in the cache; empty when the cache is empty or its content is not known. */
    Optional<CachedConversation> conversation() {
        return Optional.ofNullable(conversation);
    }

    void conversation(CachedConversation value) {
        conversation = value;
    }

    /** The key of the conversation last run on this slot (client-given, or derived from its first messages). */
    void conversationKey(String value) {
        conversationKey = value;
    }

    void touch(long tick) {
        lastUsed = tick;
    }
}
