package io.rkllm.server.backend.llama;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Whether the decode step under way stops at once (the check llama.cpp's abort callback asks on ggml's threads): only
 * when every run in it has been cancelled. Only a step that reads a prompt is given one. An aborted decode throws away
 * the whole step, every sequence's share of it (the others decode theirs again), and llama.cpp reports it as a failed
 * decode. A step of one generated token per run costs about a token's time, so a run cancelled during it (its stop
 * string came, its client went) ends at the step's end instead, its cells as the step left them. A prompt chunk may
 * take seconds on a board: a client gone during a prefill that no other run shares is not waited for.
 *
 * @param cancelled the cancel flags of the step's runs
 */
record StepAbort(List<SubmittedGeneration.Flag> cancelled) implements BooleanSupplier {

    StepAbort {
        cancelled = List.copyOf(cancelled);
    }

    @Override
    public boolean getAsBoolean() {
        if (cancelled.isEmpty()) {
            return false;
        }
        for (SubmittedGeneration.Flag flag : cancelled) {
            if (!flag.isSet()) {
                return false;
            }
        }
        return true;
    }
}
