package io.rkllm.server.pipeline;

import io.rkllm.server.engine.cache.CachedConversation;
import java.util.Optional;

/**
 * What the pipeline knows about one handle (slot): the chat template and tools last set on it and
 * the conversation its KV cache holds. Written only on the model's worker thread; the conversation is also read
 * by requests being prepared (to decide what to trim), so it is published through a volatile field.
 */
final class SlotState {
    private PromptFormat.RuntimeTemplate template;
    private String tools;
    private volatile CachedConversation conversation;
    private long lastUsed;
    private String conversationKey = "";

    Optional<PromptFormat.RuntimeTemplate> template() {
        return Optional.ofNullable(template);
    }

    void template(PromptFormat.RuntimeTemplate value) {
        template = value;
    }

    Optional<String> tools() {
        return Optional.ofNullable(tools);
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
    String conversationKey() {
        return conversationKey;
    }

    void conversationKey(String value) {
        conversationKey = value;
    }

    long lastUsed() {
        return lastUsed;
    }

    void touch(long tick) {
        lastUsed = tick;
    }
}
