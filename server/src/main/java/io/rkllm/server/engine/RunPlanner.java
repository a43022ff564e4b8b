package io.rkllm.server.engine;

import io.rkllm.ffm.Model;
import io.rkllm.ffm.RunInput;
import io.rkllm.ffm.TokenEvent;

/**
 * Decides, on the model's worker thread right before the run, what to send: the KV cache's
 * contents are only known there (the cache policy lives behind this seam).
 */
public interface RunPlanner {

    /** Prepares the model (clear the cache, set a template) and returns the run to execute. */
    RunInput plan(Model model);

    /** Called on the worker thread after the run with its terminal event, to record what the cache holds. */
    default void finished(Model model, RunInput input, TokenEvent terminal) {
    }
}
