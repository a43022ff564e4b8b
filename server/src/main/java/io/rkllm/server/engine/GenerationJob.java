package io.rkllm.server.engine;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEnd;
import io.rkllm.server.engine.contract.StopReason;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One generation, on the model's thread or, for a model that runs several at once, on one of its generation
 * threads: it waits for an embedding run in progress (chats go first), the backend runs it (its cache policy, the
 * native run, what the cache holds afterwards), its text goes to the generation's reader as it comes, and the
 * reader gets the end.
 */
final class GenerationJob extends Job {
    private static final Logger LOG = LoggerFactory.getLogger(GenerationJob.class);
    final Generation generation;
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
    GenerationJob(String model, GenerationsFirst turns, Predicate<Job> dequeue, Priority priority, long sequence,
                  ChatPrompt prompt, int maxTokens) {
        super(1 + priority.ordinal(), sequence);
        this.model = model;
        this.turns = turns;
        this.prompt = prompt;
        this.maxTokens = maxTokens;
        this.background = priority == Priority.BACKGROUND;
        this.generation = new Generation(() -> dequeue.test(this));
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
            if (generation.cancellation().isCancelled()) {
                // cancelled between leaving the queue and its run: nothing else tells its reader that it ended
                CancelReason reason = generation.cancelReason().orElse(CancelReason.SHUTDOWN);
                generation.emit(new GenerationEvent.Failed(new Failure.Cancelled(reason, reason.description())));
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
        generation.emit(new GenerationEvent.Failed(generation.cancelReason()
                .<Failure>map(r -> new Failure.Cancelled(r, message)).orElse(new Failure.RuntimeFailed(message))));
    }

    @Override
    void cancel(CancelReason reason) {
        generation.cancel(reason);
    }

    private void run(BackendModel model) {
        generation.emit(new GenerationEvent.Started((System.nanoTime() - queuedAt) / 1_000_000));
        try {
            // an embedding run in progress ends first; none starts while this generation waits or runs
            turns.awaitGenerationTurn();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            generation.emit(new GenerationEvent.Failed(new Failure.RuntimeFailed("interrupted before the run")));
            return;
        }
        GenerationEnd end;
        try {
            end = model.generate(prompt, maxTokens,
                    (text, tokens) -> generation.emit(new GenerationEvent.Text(text, tokens)),
                    generation.cancellation());
        } catch (RuntimeException e) {
            // a backend broke its promise not to throw: the reader still learns that the run ended, and why
            LOG.error("model {}: the run failed", model, e);
            end = new GenerationEnd.Failed("the run failed: " + e);
        }
        generation.emit(switch (end) {
            case GenerationEnd.Failed failed -> new GenerationEvent.Failed(new Failure.RuntimeFailed(failed.message()));
            case GenerationEnd.Refused refused -> new GenerationEvent.Failed(Failure.InvalidRequest.of("messages",
                    refused.message()));
            case GenerationEnd.TooLong tooLong -> new GenerationEvent.Failed(new Failure.ContextTooLong(
                    tooLong.promptTokens(), tooLong.contextTokens(), tooLong.message()));
            case GenerationEnd.Finished finished -> finished(finished);
        });
    }

    /** The end as the reader sees it: a run cut short by a timeout or a shutdown is a failure, with its reason. */
    private GenerationEvent finished(GenerationEnd.Finished end) {
        if (end.reason() == StopReason.CANCELLED) {
            Optional<CancelReason> reason = generation.cancelReason();
            if (reason.isPresent() && reason.get().isError()) {
                return new GenerationEvent.Failed(new Failure.Cancelled(reason.get(), reason.get().description()));
            }
        }
        return new GenerationEvent.Done(end.reason(), end.stats(), end.reusedTokens(), end.prefilledText(),
                end.runtimeSettings());
    }
}
