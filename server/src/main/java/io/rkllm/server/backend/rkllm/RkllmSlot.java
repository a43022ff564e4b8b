package io.rkllm.server.backend.rkllm;

import java.util.OptionalInt;

/**
 * What the RKLLM cache policy may do to one slot (a model handle with its own KV cache) before a run, on the
 * model's worker thread. The native handle stays behind it ({@link FfmSlot}); tests of the policy give it a slot of
 * their own.
 */
public interface RkllmSlot {

    /** Empties the KV cache, keeping the system prompt's entries when asked. */
    void clearKvCache(boolean keepSystemPrompt);

    /** The KV cache's size in tokens, or empty when the runtime cannot tell. */
    OptionalInt kvCacheSize();

    /** Replaces the chat template the runtime wraps every prompt in. */
    void setChatTemplate(String systemPrompt, String promptPrefix, String promptPostfix);

    /** Native tool calling: the tools as a JSON array ("" for none); tool results then run with role "tool". */
    void setFunctionTools(String systemPrompt, String toolsJson, String toolResponseTag);
}
