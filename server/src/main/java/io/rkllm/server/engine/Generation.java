package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.TokenLogprob;
import io.rkllm.server.engine.contract.TokenSink;
import io.rkllm.server.engine.contract.StopReason;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One generation: queued in its model's worker, then run on the model's thread or, for a model that runs several at
 * once, on one of its generation threads. It waits for an embedding run in progress (chats go first), the backend
 * runs it (its cache policy, the native run, what the cache holds afterwards), its text goes to its reader as
 * {@link GenerationEvent}s as it comes, and the reader gets the end. Its caller reads it ({@link #poll}) and may
 * cancel it from any thread ({@link #cancel}).
 */
public final class Generation extends Job<GenerationEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(Generation.class);
    final boolean background;
    /** Chosen to give way to a chat (guarded by the {@link JobQueue}'s lock): chosen once. */
    boolean preempted;
    /** The model's name, for the log. */
    private final String model;
    private final GenerationsFirst turns;
    private final ChatPrompt prompt;
    private final int maxTokens;
    private final long queuedAt = System.nanoTime();
    /** This generation's place before the embeddings ({@link GenerationsFirst}), from its queueing to its end. */
    private volatile GenerationsFirst.Ticket turn;

    /**
     * @param model the model's name, for the log
     * @param turns generations before embeddings, shared by the registry's workers
     * @param dequeue takes the job out of its worker's queue if it is still there (a cancel before it ran)
     */
    Generation(String model, GenerationsFirst turns, Predicate<Job<?>> dequeue, Priority priority, long sequence,
               ChatPrompt prompt, int maxTokens) {
        super(1 + priority.ordinal(), sequence, dequeue, GenerationEvent.Failed::new);
        this.model = model;
        this.turns = turns;
        this.prompt = prompt;
        this.maxTokens = maxTokens;
        this.background = priority == Priority.BACKGROUND;
    }

    /** Set before the job enters the queue. */
    void holdTurn(GenerationsFirst.Ticket ticket) {
        turn = ticket;
    }

    /** The job left the queue for good or its run ended: embeddings may run again. */
    void releaseTurn() {
        GenerationsFirst.Ticket ticket = turn;
        if (ticket != null) {
            ticket.close();
        }
    }

    @Override
    void execute(BackendModel model) {
        try {
            if (cancellation().isCancelled()) {
                // cancelled between leaving the queue and its run: nothing else tells its reader that it ended
                emit(cancelledEnd(CancelReason.SHUTDOWN));
                return;
            }
            run(model);
        } finally {
            releaseTurn();
        }
    }

    @Override
    void fail(String message) {
        releaseTurn();
        super.fail(message);
    }

    private void run(BackendModel model) {
        emit(new GenerationEvent.Started((System.nanoTime() - queuedAt) / 1_000_000));
        try {
            // an embedding run in progress ends first; none starts while this generation waits or runs
            turns.awaitGenerationTurn();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            emit(new GenerationEvent.Failed(new Failure.RuntimeFailed("interrupted before the run")));
            return;
        }
        GenerationEvent.End end;
        try {
            end = model.generate(prompt, maxTokens, new TokenSink() {
                @Override
                public void text(String text, int tokens) {
                    emit(new GenerationEvent.Text(text, tokens));
                }

                @Override
                public void logprob(TokenLogprob token) {
                    emit(new GenerationEvent.Logprob(token));
                }
            }, cancellation());
        } catch (RuntimeException e) {
            // a backend broke its promise not to throw: the reader still learns that the run ended, and why
            LOG.error("model {}: the run failed", model, e);
            end = GenerationEvent.failed("the run failed: " + e);
        }
        emit(end instanceof GenerationEvent.Done done ? finished(done) : end);
    }

    /** The end as the reader sees it: a run cut short by a timeout or a shutdown is a failure, with its reason. */
    private GenerationEvent finished(GenerationEvent.Done end) {
        if (end.reason() == StopReason.CANCELLED) {
            Optional<CancelReason> reason = cancelReason();
            if (reason.isPresent() && reason.get().isError()) {
                return cancelledEnd(reason.get());
            }
        }
        return end;
    }
}
