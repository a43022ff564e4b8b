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
 * ones, never waited for) as what they are: best effort. One at a time per model, only for a model loaded and doing
 * nothing else (a warm-up would take the cores a completion needs, or make another model give way), queued behind
 * any request (a background job, which a request of any route preempts), and stopped by a completion of the model.
 * A request that names no model (llama.vscode names none in its warm-ups) goes to the model that served
 * {@code /infill} last: the editor's.
 */
final class WarmUps {
    private final ModelService models;
    private final ConcurrentMap<String, Warming> running = new ConcurrentHashMap<>();
    private final AtomicReference<String> lastInfill = new AtomicReference<>("");

    WarmUps(ModelService models) {
        this.models = models;
    }

    /**
     * The model a request means: the one it names, else for {@code /infill} the one that served it last (while it
     * is still there: a model deleted since is no one's).
     */
    String model(String asked, boolean infill) {
        String last = lastInfill.get();
        return asked.isBlank() && infill && !last.isEmpty() && models.resolve(last).isPresent() ? last : asked;
    }

    /** A completion of {@code modelId} begins: its warm-up stops, and an {@code /infill} one marks the editor's. */
    void completing(String modelId, boolean infill) {
        if (infill) {
            lastInfill.set(modelId);
        }
        Warming warming = running.get(modelId);
        if (warming != null) {
            warming.stop();
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
        boolean idle = models.status(model).map(s -> s.ready() && s.running() == 0 && s.queued() == 0).orElse(false);
        Warming warming = new Warming();
        if (!idle || running.putIfAbsent(model.id(), warming) != null) {
            return Optional.empty();
        }
        return Optional.of(new Place(model.id(), warming));
    }

    /** A warm-up's run, once started; stopped as it starts when a completion came first. */
    private static final class Warming {
        private Run run;
        private boolean stopped;

        synchronized void stop() {
            stopped = true;
            if (run != null) {
                run.cancel(CancelReason.PREEMPTED);
            }
        }

        synchronized void started(Run value) {
            run = value;
            if (stopped) {
                value.cancel(CancelReason.PREEMPTED);
            }
        }
    }

    /** A warm-up's place: its run, once started, may be stopped by a completion. */
    final class Place implements AutoCloseable {
        private final String modelId;
        private final Warming warming;

        private Place(String modelId, Warming warming) {
            this.modelId = modelId;
            this.warming = warming;
        }

        String modelId() {
            return modelId;
        }

        void started(Run run) {
            warming.started(run);
        }

        @Override
        public void close() {
            running.remove(modelId, warming);
        }
    }
}
