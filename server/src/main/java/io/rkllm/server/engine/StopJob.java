package io.rkllm.server.engine;

import io.rkllm.server.engine.contract.BackendModel;

/** Ends the model's thread once everything queued before it has run. */
final class StopJob extends Job<Void> {
    StopJob(long sequence) {
        super(Integer.MAX_VALUE, sequence, job -> false, failure -> null);
    }

    @Override
    void execute(BackendModel model) {
    }

    @Override
    void fail(String message) {
        // nobody reads a stop's end
    }
}
