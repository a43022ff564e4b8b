package io.rkllm.server.pipeline;

import io.rkllm.server.backend.rkllm.ConversationCache;
import io.rkllm.server.backend.rkllm.RkllmSlot;
import io.rkllm.server.backend.rkllm.RunRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * A slot as the runtime keeps it, in Java: a KV cache that grows by what each keep_history run prefills and
 * generates, is emptied by a clear (down to the system prompt's entries when asked), and logs every call.
 */
final class FakeSlot implements RkllmSlot {
    /** Tokens the system prompt of the chat template takes, kept by a clear that keeps it. */
    static final int SYSTEM_TOKENS = 20;

    final List<String> calls = new ArrayList<>();
    int size;
    /** What the slot reports when asked its size, when a test wants it to disagree with the bookkeeping. */
    Integer reportedSize;

    @Override
    public void clearKvCache(boolean keepSystemPrompt) {
        calls.add("clear keep_system=" + keepSystemPrompt);
        size = keepSystemPrompt && size > 0 ? Math.min(size, SYSTEM_TOKENS) : 0;
    }

    @Override
    public OptionalInt kvCacheSize() {
        return OptionalInt.of(reportedSize != null ? reportedSize : size);
    }

    @Override
    public void setChatTemplate(String systemPrompt, String promptPrefix, String promptPostfix) {
        calls.add("template system=" + systemPrompt.length());
    }

    @Override
    public void setFunctionTools(String systemPrompt, String toolsJson, String toolResponseTag) {
        calls.add("tools " + (toolsJson.isEmpty() ? "none" : toolsJson.length()));
    }

    /** What a run of {@code request} prefills: the system prompt's entries on an empty cache, then the text. */
    int prefill(RunRequest request) {
        return (size == 0 ? SYSTEM_TOKENS : 0) + Math.max(1, request.prompt().length() / 4);
    }

    void ran(ConversationCache.Planned plan, int prefilled, int generated) {
        if (plan.request().keepHistory()) {
            size += prefilled + generated;
        }
    }
}
