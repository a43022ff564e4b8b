package io.rkllm.server.engine;

import io.rkllm.ffm.Model;
import java.util.List;

/** Ends the model's thread once everything queued before it has run. */
final class StopJob extends Job {
    StopJob(long sequence) {
        super(Integer.MAX_VALUE, sequence);
    }

    @Override
    void execute(List<Model> slots) {
    }

    @Override
    void fail(String message) {
    }
}
