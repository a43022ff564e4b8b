package io.rkllm.server.pipeline;

/**
 * What a run reused: tokens already in the KV cache when it started, and whether the plan sent
 * only the new part of the conversation.
 */
public record RunAccounting(int cachedTokens, boolean incremental) {
    public static final RunAccounting NONE = new RunAccounting(0, false);
}
