package io.rkllm.server.engine;

import io.rkllm.ffm.HiddenLayer;
import io.rkllm.ffm.Model;
import io.rkllm.ffm.RunInput;
import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One embedding request on the model's thread: the handle is readied once, then each prompt runs in
 * {@code RKLLM_INFER_GET_LAST_HIDDEN_LAYER} mode with {@code keep_history=0} on the empty KV cache (so every
 * vector depends on its own text only), taking its turn on the NPU after any generation (and, like every
 * {@code rkllm_run}, never beside an image encoder's run: {@link NpuLock}), and its rows are pooled at once. The
 * first prompt that fails fails the request: the prompts after it do not run.
 */
final class EmbeddingJob extends Job {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddingJob.class);

    final Embedding embedding;
    private final ModelWorker worker;
    private final EmbeddingWork work;
    private final long queuedAt = System.nanoTime();

    EmbeddingJob(ModelWorker worker, Priority priority, long sequence, EmbeddingWork work) {
        super(1 + priority.ordinal(), sequence);
        this.worker = worker;
        this.work = work;
        this.embedding = new Embedding(() -> worker.dequeue(this));
    }

    @Override
    void execute(Slots slots) {
        worker.taken(this);
        if (embedding.control().isAborted()) {
            // cancelled between leaving the queue and now: its reader still waits for the end
            embedding.emit(cancelled());
            return;
        }
        worker.running(this);
        try {
            embedding.emit(run(slots.get(0)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            embedding.emit(new EmbeddingEvent.Failed(new Failure.Cancelled(CancelReason.SHUTDOWN,
                    "interrupted before the run")));
        } finally {
            worker.running(null);
        }
    }

    @Override
    void fail(String message) {
        worker.taken(this);
        embedding.emit(new EmbeddingEvent.Failed(embedding.cancelReason()
                .<Failure>map(r -> new Failure.Cancelled(r, message)).orElse(new Failure.RuntimeFailed(message))));
    }

    @Override
    void cancel(CancelReason reason) {
        embedding.cancel(reason);
    }

    private EmbeddingEvent run(Model model) throws InterruptedException {
        embedding.emit(new EmbeddingEvent.Started((System.nanoTime() - queuedAt) / 1_000_000));
        try {
            work.prepare(new FfmSlot(model));
        } catch (RuntimeException e) {
            LOG.warn("model {}: preparing the embedding runs failed: {}", worker.name(), e.toString());
            return new EmbeddingEvent.Failed(new Failure.RuntimeFailed("preparing the model failed: "
                    + e.getMessage()));
        }
        List<String> prompts = work.prompts();
        List<float[]> vectors = new ArrayList<>(prompts.size());
        List<RunStats> runs = new ArrayList<>(prompts.size());
        for (int i = 0; i < prompts.size(); i++) {
            if (!worker.turns().beginEmbedding(() -> embedding.control().isAborted())) {
                return cancelled();
            }
            HiddenLayer result;
            try {
                // an rkllm_run like a generation's: never beside a vision model's encoder run
                RunInput input = RunInput.user(prompts.get(i), false);
                result = worker.npu().generating(() -> model.lastHiddenLayer(input, embedding.control()));
            } catch (RuntimeException e) {
                LOG.error("model {}: embedding run failed", worker.name(), e);
                result = new HiddenLayer.Failed(e.getMessage());
            } finally {
                worker.turns().endEmbedding();
            }
            switch (result) {
                case HiddenLayer.States states -> {
                    vectors.add(work.pool(states.embdSize(), states.rows()));
                    runs.add(NativeTypes.stats(states.perf()));
                }
                case HiddenLayer.Aborted aborted -> {
                    return cancelled();
                }
                case HiddenLayer.Failed failed -> {
                    String which = prompts.size() == 1 ? "" : " on input " + i + " of " + prompts.size();
                    return new EmbeddingEvent.Failed(new Failure.RuntimeFailed("the RKLLM runtime failed" + which
                            + ": " + failed.message() + "; the inputs after it were not embedded"));
                }
            }
        }
        return new EmbeddingEvent.Done(vectors, runs);
    }

    private EmbeddingEvent cancelled() {
        Optional<CancelReason> reason = embedding.cancelReason();
        CancelReason r = reason.orElse(CancelReason.CLIENT_GONE);
        return new EmbeddingEvent.Failed(new Failure.Cancelled(r, r.description()));
    }
}
