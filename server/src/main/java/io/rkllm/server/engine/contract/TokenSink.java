package io.rkllm.server.engine.contract;

/**
 * Where a backend's run delivers its output, in order, before its end is returned. Safe to call from any one thread at
 * a time (the engine's sink puts the text on its reader's queue): a backend may call it from the thread that decodes,
 * so that a token wakes no thread but its reader's.
 */
@FunctionalInterface
public interface TokenSink {

    /** Whole characters of output (never empty); {@code tokens} generated so far. */
    void text(String text, int tokens);

    /**
     * A generated token's log probability, before the text it adds; only for a run whose prompt asks for them
     * ({@link ChatPrompt.Settings#logprobs()}), from a backend that has them (llama.cpp). The end-of-generation token
     * is not one.
     */
    default void logprob(TokenLogprob token) {
    }
}
