package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.EmbeddingEnd;
import io.rkllm.server.engine.contract.GenerationStats;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One embedding request on the model's thread, never beside a generation of the same model: the model is readied
 * once (the framing template, an empty cache, so every vector depends on its own text only), then each prompt runs,
 * taking its turn after any generation, and its rows are pooled at once. The first prompt that fails
 * fails the request: the prompts after it do not run. Cancelling a running one aborts its current run and skips the
 * prompts after it.
 */
public final class Embedding extends Job<EmbeddingEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(Embedding.class);

    /** The model's name, for the log. */
    private final String model;
    private final GenerationsFirst turns;
    private final EmbeddingWork work;
    private final String runtime;
    private final long queuedAt = System.nanoTime();

    /**
     * @param model the model's name, for the log
     * @param turns generations before embeddings, shared by the registry's workers
     * @param dequeue takes the job out of its worker's queue if it is still there (a cancel before it ran)
     * @param runtime the backend's runtime as a user knows it, for the failure message
     */
    Embedding(String model, GenerationsFirst turns, Predicate<Job<?>> dequeue, Priority priority, long sequence,
              EmbeddingWork work, String runtime) {
        super(1 + priority.ordinal(), sequence, dequeue, EmbeddingEvent.Failed::new);
        this.model = model;
        this.turns = turns;
        this.work = work;
        this.runtime = runtime;
    }

    @Override
    void execute(BackendModel model) {
        if (cancellation().isCancelled()) {
            // cancelled between leaving the queue and now: its reader still waits for the end
            emit(cancelled());
            return;
        }
        try {
            emit(run(model));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            emit(new EmbeddingEvent.Failed(new Failure.Cancelled(CancelReason.SHUTDOWN,
                    "interrupted before the run")));
        }
    }

    private EmbeddingEvent run(BackendModel model) throws InterruptedException {
        emit(new EmbeddingEvent.Started((System.nanoTime() - queuedAt) / 1_000_000));
        try {
            model.readyForEmbeddings(work.template());
        } catch (RuntimeException e) {
            LOG.warn("model {}: preparing the embedding runs failed: {}", model, e.toString());
            return new EmbeddingEvent.Failed(new Failure.RuntimeFailed("preparing the model failed: "
                    + e.getMessage()));
        }
        List<String> prompts = work.prompts();
        List<float[]> vectors = new ArrayList<>(prompts.size());
        List<GenerationStats> runs = new ArrayList<>(prompts.size());
        for (int i = 0; i < prompts.size(); i++) {
            if (!turns.beginEmbedding(() -> cancellation().isCancelled())) {
                return cancelled();
            }
            emit(new EmbeddingEvent.RunStarted(i));
            EmbeddingEnd result;
            try {
                result = work.rankQuery().isPresent()
                        ? model.rank(work.rankQuery().get(), prompts.get(i), cancellation())
                        : model.embed(prompts.get(i), cancellation());
            } catch (RuntimeException e) {
                LOG.error("model {}: embedding run failed", model, e);
                result = new EmbeddingEnd.Failed(e.getMessage());
            } finally {
                turns.endEmbedding();
            }
            emit(new EmbeddingEvent.RunEnded(i));
            switch (result) {
                case EmbeddingEnd.Rows rows -> {
                    vectors.add(work.pool(rows.width(), rows.rows()));
                    runs.add(rows.stats());
                }
                case EmbeddingEnd.Aborted aborted -> {
                    return cancelled();
                }
                case EmbeddingEnd.TooLong tooLong -> {
                    String which = prompts.size() == 1 ? "The input" : "Input " + i;
                    return new EmbeddingEvent.Failed(new Failure.InvalidRequest(tooLong.param(),
                            "context_length_exceeded", which + " is too long for the model: " + tooLong.message()));
                }
                case EmbeddingEnd.Failed failed -> {
                    String which = prompts.size() == 1 ? "" : " on input " + i + " of " + prompts.size();
                    return new EmbeddingEvent.Failed(new Failure.RuntimeFailed("the " + runtime + " failed" + which
                            + ": " + failed.message() + "; the inputs after it were not embedded"));
                }
            }
        }
        return new EmbeddingEvent.Done(vectors, runs);
    }

    private EmbeddingEvent cancelled() {
        return cancelledEnd(CancelReason.CLIENT_GONE);
    }
}
