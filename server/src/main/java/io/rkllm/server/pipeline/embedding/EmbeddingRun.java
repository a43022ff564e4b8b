package io.rkllm.server.pipeline.embedding;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.Embedding;
import io.rkllm.server.engine.EmbeddingEvent;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.models.EmbeddingSettings;
import io.rkllm.server.pipeline.TokenEstimator;
import java.time.Duration;
import java.util.Optional;

/**
 * One queued embedding request, read by the route's thread in short steps (so that it can notice a client that
 * left): the result once every input ran, or the failure. Waiting longer than {@code embeddings.wait_timeout} in
 * the queue, longer than {@code timeouts.total} once started, or one input's run taking longer than
 * {@code timeouts.first_token} (a run is a prompt's prefill: a runtime that hangs in one is noticed then, not a
 * quarter of an hour later) cancels it. Closing it cancels what has not ended.
 */
public final class EmbeddingRun implements AutoCloseable {
    private final PreparedEmbedding prepared;
    private final Embedding embedding;
    private final TokenEstimator estimator;
    private final long queueDeadline;
    private final Duration total;
    private final Duration perInput;
    private long runDeadline = Long.MAX_VALUE;
    private long inputDeadline = Long.MAX_VALUE;
    private long queueMillis;
    private boolean started;
    private boolean ended;

    /** @param perInput the longest one input's run may take, zero for no limit */
    EmbeddingRun(PreparedEmbedding prepared, Embedding embedding, TokenEstimator estimator, Duration waitTimeout,
                 Duration total, Duration perInput) {
        this.perInput = perInput;
        this.prepared = prepared;
        this.embedding = embedding;
        this.estimator = estimator;
        this.queueDeadline = System.nanoTime() + waitTimeout.toNanos();
        this.total = total;
    }

    public PreparedEmbedding prepared() {
        return prepared;
    }

    /**
     * The result, or empty when nothing ended within {@code step}.
     *
     * @throws FailureException when an input failed or the request was cancelled or timed out
     */
    public Optional<EmbeddingResult> next(Duration step) throws InterruptedException {
        EmbeddingEvent event = embedding.poll(step);
        if (event == null) {
            checkDeadlines();
            return Optional.empty();
        }
        return switch (event) {
            case EmbeddingEvent.Started started -> {
                queueMillis = started.queueMillis();
                this.started = true;
                runDeadline = total.isZero() ? Long.MAX_VALUE : System.nanoTime() + total.toNanos();
                yield Optional.empty();
            }
            case EmbeddingEvent.RunStarted run -> {
                inputDeadline = perInput.isZero() ? Long.MAX_VALUE : System.nanoTime() + perInput.toNanos();
                yield Optional.empty();
            }
            case EmbeddingEvent.RunEnded run -> {
                inputDeadline = Long.MAX_VALUE; // waiting for the next input's turn (chats first) is no hang
                yield Optional.empty();
            }
            case EmbeddingEvent.Done done -> {
                ended = true;
                yield Optional.of(result(done));
            }
            case EmbeddingEvent.Failed failed -> {
                ended = true;
                throw new FailureException(failed.failure());
            }
        };
    }

    /** Stops the request (the client left): it leaves the queue, or its current run is aborted. */
    public void cancel(CancelReason reason) {
        embedding.cancel(reason);
    }

    @Override
    public void close() {
        if (!ended) {
            embedding.cancel(CancelReason.CLIENT_GONE);
        }
    }

    private void checkDeadlines() {
        long now = System.nanoTime();
        if (!started && now - queueDeadline > 0) {
            embedding.cancel(CancelReason.QUEUE_TIMEOUT);
        } else if (started && runDeadline != Long.MAX_VALUE && now - runDeadline > 0) {
            embedding.cancel(CancelReason.TOTAL_TIMEOUT);
        } else if (started && inputDeadline != Long.MAX_VALUE && now - inputDeadline > 0) {
            embedding.cancel(CancelReason.FIRST_TOKEN_TIMEOUT);
        }
    }

    private EmbeddingResult result(EmbeddingEvent.Done done) {
        int tokens = 0;
        double millis = 0;
        boolean raw = prepared.model().embedding().orElseThrow().framing() == EmbeddingSettings.Framing.RAW;
        for (int i = 0; i < done.runs().size(); i++) {
            GenerationStats stats = done.runs().get(i);
            tokens += stats.prefillTokens();
            millis += stats.prefillMs() + stats.generateMs();
            if (raw) {
                // the runtime's exact count of exactly this text: the next length checks get closer
                estimator.calibrate(prepared.model().id(), prepared.prompts().get(i), stats.prefillTokens());
            }
        }
        return new EmbeddingResult(prepared.model().id(), done.vectors(), tokens, millis, queueMillis,
                prepared.truncated());
    }
}
