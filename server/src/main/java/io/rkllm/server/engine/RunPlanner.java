package io.rkllm.server.engine;

import java.util.List;

/**
 * Decides, on the model's worker thread right before the run, what to send and on which slot: the KV caches'
 * contents are only known there. The cache policy lives behind this seam.
 */
public interface RunPlanner {

    /**
     * The slot to run on and what to run.
     *
     * @param reusedTokens what the slot's KV cache already holds of this conversation (reported in usage)
     */
    record RunPlan(int slot, RunRequest request, int reusedTokens) {
    }

    /** Prepares a slot (clear its cache, set a template) and returns the run to execute on it. */
    RunPlan plan(List<? extends KvCacheHandle> slots);

    /** After the run, on the worker thread, with how it ended and the text it delivered. */
    default void finished(RunPlan plan, RunOutcome outcome, String generatedText) {
    }
}
