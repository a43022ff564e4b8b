package io.rkllm.server.engine;

import io.rkllm.ffm.Model;
import io.rkllm.ffm.RunInput;
import io.rkllm.ffm.TokenEvent;
import java.util.List;

/**
 * Decides, on the model's worker thread right before the run, what to send and on which slot
 * (handle): the KV caches' contents are only known there. The cache policy lives behind this seam.
 */
public interface RunPlanner {

    /** The handle to run on and what to run. */
    record RunPlan(Model slot, RunInput input) {
    }

    /** Prepares a slot (clear its cache, set a template) and returns the run to execute on it. */
    RunPlan plan(List<Model> slots);

    /**
     * Called on the worker thread after the run, with its terminal event and the text the run
     * delivered, to record what the slot's cache now holds.
     */
    default void finished(RunPlan plan, TokenEvent terminal, String generatedText) {
    }
}
