package io.rkllm.server.http.llamacpp;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.pipeline.Run;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * llama.vscode's warm-ups ({@code n_predict: 0} with the files it watches, sent every second or so while it has new
 * ones, never waited for) as what they are: best effort. One at a time per model, and none while the model runs or
 * queues anything else (a warm-up would take the cores a completion needs); a completion for the model stops the
 * one under way. And a request that names no model (llama.vscode names none in its warm-ups) goes to the model that
 * served {@code /infill} last: the editor's.
 */
final class WarmUps {
    private final ModelService models;
    private final ConcurrentMap<String, AtomicReference<Run>> running = new ConcurrentHashMap<>();
    private final AtomicReference<String> lastInfill = new AtomicReference<>("");

    WarmUps(ModelService models) {
        this.models = models;
    }

    /** The model a request means: the one it names, else for {@code /infill} the one that served it last. */
    String model(String asked, boolean infill) {
        return asked.isBlank() && infill ? lastInfill.get() : asked;
    }

    /** A completion of {@code modelId} begins: its warm-up stops, and an {@code /infill} one marks the editor's model. */
    void completing(String modelId, boolean infill) {
        if (infill) {
            lastInfill.set(modelId);
        }
        AtomicReference<Run> warming = running.get(modelId);
        Run run = warming == null ? null : warming.get();
        if (run != null) {
            run.cancel(CancelReason.PREEMPTED);
        }
    }

    /** A place for a warm-up of the model {@code asked} means, when it may run now; close it when the warm-up ends. */
    Optional<Place> admit(String asked) {
        ModelDescriptor model;
        try {
            model = models.forRequest(asked);
        } catch (FailureException e) {
            return Optional.empty();
        }
        boolean busy = models.status(model).map(s -> s.running() > 0 || s.queued() > 0).orElse(false);
        AtomicReference<Run> place = new AtomicReference<>();
        if (busy || running.putIfAbsent(model.id(), place) != null) {
            return Optional.empty();
        }
        return Optional.of(new Place(model.id(), place));
    }

    /** A warm-up's place: its run, once started, may be stopped by a completion. */
    final class Place implements AutoCloseable {
        private final String modelId;
        private final AtomicReference<Run> run;

        private Place(String modelId, AtomicReference<Run> run) {
            this.modelId = modelId;
            this.run = run;
        }

        String modelId() {
            return modelId;
        }

        void started(Run value) {
            run.set(value);
        }

        @Override
        public void close() {
            running.remove(modelId, run);
        }
    }
}
