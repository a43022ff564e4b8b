package io.rkllm.server.engine;

import io.rkllm.ffm.Abi;
import io.rkllm.ffm.ImageInput;
import io.rkllm.ffm.Model;
import io.rkllm.ffm.ModelParams;
import io.rkllm.ffm.PerfStats;
import io.rkllm.ffm.RunInput;
import io.rkllm.ffm.TokenEvent;
import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One generation on the model's thread: the planner prepares a slot, the run streams its text to the
 * generation's reader, the planner records what the slot's cache holds afterwards, and the reader gets the end.
 */
final class GenerationJob extends Job {
    private static final Logger LOG = LoggerFactory.getLogger(GenerationJob.class);

    final Generation generation;
    final boolean background;
    private final ModelWorker worker;
    private final RunPlanner planner;
    private final int maxTokens;
    private final long queuedAt = System.nanoTime();
    /** This generation's place before the embeddings on the NPU, from its queueing to its end. */
    private volatile NpuTurns.Ticket turn;

    GenerationJob(ModelWorker worker, Priority priority, long sequence, RunPlanner planner, int maxTokens) {
        super(1 + priority.ordinal(), sequence);
        this.worker = worker;
        this.planner = planner;
        this.maxTokens = maxTokens;
        this.background = priority == Priority.BACKGROUND;
        this.generation = new Generation(() -> worker.dequeue(this));
    }

    /** Set before the job enters the queue. */
    void holdTurn(NpuTurns.Ticket ticket) {
        turn = ticket;
    }

    /** The job left the queue for good or its run ended: embeddings may have the NPU again. */
    void releaseTurn() {
        NpuTurns.Ticket ticket = turn;
        if (ticket != null) {
            ticket.close();
        }
    }

    @Override
    void execute(Slots slots) {
        try {
            worker.taken(this);
            if (generation.control().isAborted()) {
                return;
            }
            worker.running(this);
            try {
                run(slots);
            } finally {
                worker.running(null);
            }
        } finally {
            releaseTurn();
        }
    }

    @Override
    void fail(String message) {
        worker.taken(this);
        releaseTurn();
        generation.emit(new GenerationEvent.Failed(generation.cancelReason()
                .<Failure>map(r -> new Failure.Cancelled(r, message)).orElse(new Failure.RuntimeFailed(message))));
    }

    @Override
    void cancel(CancelReason reason) {
        generation.cancel(reason);
    }

    private void run(Slots slots) {
        generation.emit(new GenerationEvent.Started((System.nanoTime() - queuedAt) / 1_000_000));
        RunPlanner.RunPlan plan;
        Model model;
        try {
            plan = plan(slots);
            model = slots.get(plan.slot());
        } catch (RuntimeException e) {
            LOG.warn("model {}: preparing the run failed: {}", worker.name(), e.toString());
            generation.emit(new GenerationEvent.Failed(new Failure.RuntimeFailed("preparing the run failed: "
                    + e.getMessage())));
            return;
        }
        RunInput input = NativeTypes.input(plan.request(), model.params().sampling(),
                model.abi().perRunSampling() ? maxTokens : 0);
        Optional<ImageInput> images = Optional.empty();
        boolean cancelledWhileEncoding = false;
        if (!plan.request().images().isEmpty()) {
            ImageStep.Result result = slots.vision().map(v -> v.embed(plan.request().images(),
                    generation.control()::isAborted)).orElseGet(() -> new ImageStep.Result.Failed("model "
                    + worker.name() + " has no image encoder"));
            switch (result) {
                case ImageStep.Result.Ready ready -> images = Optional.of(NativeTypes.images(ready.embeddings(),
                        ready.encoder()));
                case ImageStep.Result.Cancelled c -> cancelledWhileEncoding = true;
                case ImageStep.Result.Failed failed -> {
                    finish(plan, new RunOutcome.Failed(failed.message()), "");
                    generation.emit(new GenerationEvent.Failed(new Failure.RuntimeFailed(failed.message())));
                    return;
                }
            }
        }
        // runtime 1.2 has no per-run limit: count the tokens and abort at the limit
        boolean countLimit = maxTokens > 0 && model.abi() == Abi.V1_2;
        boolean[] limitHit = {false};
        EosWatch.Run endOfTurn = worker.eos().run();
        StringBuilder generated = new StringBuilder();
        TokenEvent terminal;
        Consumer<TokenEvent> sink = event -> {
            if (event instanceof TokenEvent.Text text) {
                if (endOfTurn.passedTheEnd(text.text())) {
                    generation.control().abort();
                    return;
                }
                if (text.text().isEmpty()) {
                    return; // a special token that prints nothing
                }
                generated.append(text.text());
                generation.emit(new GenerationEvent.Text(text.text(), text.tokens()));
                if (countLimit && text.tokens() >= maxTokens && !limitHit[0]) {
                    limitHit[0] = true;
                    generation.control().abort();
                }
            }
        };
        Optional<ImageInput> pictures = images;
        try {
            if (cancelledWhileEncoding) {
                // the client left while the pictures were encoded: the language model never runs
                terminal = new TokenEvent.Finished(PerfStats.NONE, true);
            } else {
                // an embedding run in progress ends first; none starts while this generation waits or runs
                worker.turns().awaitGenerationTurn();
                terminal = worker.npu().generating(() -> pictures.isPresent()
                        ? model.run(input, pictures.get(), sink, generation.control())
                        : model.run(input, sink, generation.control()));
            }
        } catch (RuntimeException e) {
            LOG.error("model {}: run failed", worker.name(), e);
            terminal = new TokenEvent.Failed("the run failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            terminal = new TokenEvent.Failed("interrupted before the run");
        }
        // a run stopped at its end of turn ended as the model meant it to: its cache holds a whole turn
        boolean aborted = terminal instanceof TokenEvent.Finished f && f.aborted() && !endOfTurn.stopped();
        RunOutcome outcome = switch (terminal) {
            case TokenEvent.Finished f -> new RunOutcome.Finished(NativeTypes.stats(f.perf()), aborted);
            case TokenEvent.Failed f -> new RunOutcome.Failed(f.message());
            case TokenEvent.Text t -> throw new IllegalStateException("text is not terminal");
        };
        finish(plan, outcome, generated.toString());
        GenerationEvent end = end(terminal, aborted, limitHit[0], plan.reusedTokens(), model.params());
        if (end instanceof GenerationEvent.Done done) {
            worker.eos().ended(endOfTurn, done.reason(), maxTokens);
        }
        generation.emit(end);
    }

    private void finish(RunPlanner.RunPlan plan, RunOutcome outcome, String generated) {
        try {
            planner.finished(plan, outcome, generated);
        } catch (RuntimeException e) {
            LOG.error("model {}: recording the run failed", worker.name(), e);
        }
    }

    /** The planner's decision; planned again on fewer slots when the one it chose could not be loaded. */
    private RunPlanner.RunPlan plan(Slots slots) {
        try {
            return planner.plan(slots.views());
        } catch (Slots.SlotUnavailableException e) {
            return planner.plan(slots.views());
        }
    }

    private GenerationEvent end(TokenEvent terminal, boolean aborted, boolean limitHit, int reused,
                                ModelParams params) {
        return switch (terminal) {
            case TokenEvent.Failed failed -> new GenerationEvent.Failed(new Failure.RuntimeFailed(failed.message()));
            case TokenEvent.Finished finished -> finished(finished.perf(), aborted, limitHit, reused, params);
            case TokenEvent.Text text -> throw new IllegalStateException("text is not terminal");
        };
    }

    private GenerationEvent finished(PerfStats perf, boolean aborted, boolean limitHit, int reused,
                                     ModelParams params) {
        RunStats stats = NativeTypes.stats(perf);
        if (limitHit || (maxTokens > 0 && !aborted && perf.generateTokens() >= maxTokens)) {
            return new GenerationEvent.Done(StopReason.LENGTH, stats, reused);
        }
        boolean contextFull = reused + perf.prefillTokens() + perf.generateTokens() >= params.maxContextLen();
        boolean runtimeLimit = params.maxNewTokens() > 0 && perf.generateTokens() >= params.maxNewTokens();
        if (!aborted && (contextFull || runtimeLimit)) {
            // the runtime stopped because nothing more fits (or at its own limit), not because the answer ended
            return new GenerationEvent.Done(StopReason.LENGTH, stats, reused);
        }
        if (aborted) {
            Optional<CancelReason> reason = generation.cancelReason();
            if (reason.isPresent() && reason.get().isError()) {
                return new GenerationEvent.Failed(new Failure.Cancelled(reason.get(), reason.get().description()));
            }
            return new GenerationEvent.Done(StopReason.CANCELLED, stats, reused);
        }
        return new GenerationEvent.Done(StopReason.END, stats, reused);
    }
}
