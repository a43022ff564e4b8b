package io.rkllm.server.pipeline;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import io.rkllm.server.pipeline.request.ToolCallRecord;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run whose answer must meet a contract ({@link AnswerContract}): its reasoning streams as it comes, its content
 * and tool calls are held until the answer is complete and checked. A valid answer is released whole (JSON as
 * mended, if it needed mending); an invalid one is asked for once more, as a new turn on top of the cached
 * conversation; a second failure is an error, never an invalid answer presented as valid.
 */
final class CheckedRun implements Run {
    private static final Logger LOG = LoggerFactory.getLogger(CheckedRun.class);

    private final Retry retries;
    private final PreparedChat chat;
    private final AnswerContract contract;
    private final Deque<RunStep> pending = new ArrayDeque<>();
    private volatile Run current;
    private StringBuilder content = new StringBuilder();
    private List<OutputEvent.ToolCall> calls = new ArrayList<>();
    /** The log probabilities of the answer's tokens, released with the checked answer (the reasoning's too). */
    private List<TokenProbability> logprobs = new ArrayList<>();
    private Usage firstUsage;
    private boolean retried;
    private boolean done;
    private final long arrivedNanos;
    private final long loadNanos;

    /** How an answer that failed its check is asked for once more: a new turn on top of the conversation. */
    @FunctionalInterface
    interface Retry {
        /**
         * The run of the retry, started by the caller.
         *
         * @param first the chat whose answer failed
         * @param reply the answer's text, and its calls, sent back as the assistant's turn
         * @param correction what the user turn after it says
         */
        Run retry(PreparedChat first, String reply, List<ToolCallRecord> replyCalls, String correction);
    }

    CheckedRun(Retry retries, PreparedChat chat, AnswerContract contract, Run first) {
        this.retries = retries;
        this.chat = chat;
        this.contract = contract;
        this.current = first;
        this.arrivedNanos = first.arrivedNanos();
        this.loadNanos = first.loadNanos();
    }

    @Override
    public PreparedChat chat() {
        return chat;
    }

    @Override
    public long arrivedNanos() {
        return arrivedNanos;
    }

    @Override
    public long loadNanos() {
        return loadNanos;
    }

    @Override
    public void start() {
        current.start();
    }

    @Override
    public RunStep next(Duration keepAlive) throws InterruptedException {
        long deadline = System.nanoTime() + keepAlive.toNanos();
        while (pending.isEmpty()) {
            if (done) {
                throw new IllegalStateException("the run is over");
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return new RunStep.KeepAlive();
            }
            RunStep step = current.next(Duration.ofNanos(left));
            switch (step) {
                case RunStep.KeepAlive k -> {
                    return k;
                }
                case RunStep.Output out -> {
                    logprobs.addAll(out.logprobs());
                    List<OutputEvent> shown = hold(out.events());
                    if (!shown.isEmpty()) {
                        return new RunStep.Output(shown);
                    }
                }
                case RunStep.Failed failed -> {
                    done = true;
                    return failed;
                }
                case RunStep.Finished finished -> finish(finished);
            }
        }
        return pending.poll();
    }

    /** Keeps content and tool calls back until the answer is checked; what is shown now (reasoning) is returned. */
    private List<OutputEvent> hold(List<OutputEvent> events) {
        List<OutputEvent> shown = new ArrayList<>();
        for (OutputEvent event : events) {
            switch (event) {
                case OutputEvent.Reasoning r -> shown.add(r);
                case OutputEvent.Content c -> content.append(c.text());
                case OutputEvent.ToolCall t -> calls.add(t);
                case OutputEvent.CallDelta d -> {
                    // the checked call is released whole, as it may be mended or asked for again
                }
            }
        }
        return shown;
    }

    private void finish(RunStep.Finished finished) {
        Usage usage = firstUsage == null ? finished.usage() : firstUsage.then(finished.usage());
        AnswerContract.Verdict verdict = switch (contract) {
            case AnswerContract.Json json -> json.check(content.toString());
            case AnswerContract.ToolCall tool -> tool.check(calls);
        };
        if (verdict.ok()) {
            done = true;
            String check = (retried ? "retried" : verdict.repaired() ? "repaired" : "valid")
                    + (retried && verdict.repaired() ? "_repaired" : "");
            if (contract instanceof AnswerContract.Json) {
                pending.add(new RunStep.Output(List.of(new OutputEvent.Content(verdict.json())), logprobs));
                pending.add(new RunStep.Finished(finished.finishReason(), usage, Optional.of(check)));
            } else {
                pending.add(new RunStep.Output(new ArrayList<OutputEvent>(calls), logprobs));
                pending.add(new RunStep.Finished("tool_calls", usage, Optional.of(check)));
            }
            if (!check.equals("valid")) {
                LOG.info("model {}: the answer met the request's {} after it was {}", chat.model().id(), name(),
                        check.replace('_', ' '));
            }
            return;
        }
        if (retried) {
            done = true;
            LOG.warn("model {}: the answer did not meet the request's {} twice: {}", chat.model().id(), name(),
                    verdict.problem());
            pending.add(new RunStep.Failed(new Failure.InvalidOutput("the model did not produce a valid answer"
                    + " for the request's " + name() + ": " + verdict.problem() + " (also when asked a second time)."
                    + " Simplify the schema, allow more tokens, or use a larger model.")));
            return;
        }
        if (chat.request().raw().isPresent()) {
            // a correction is a chat turn, which a raw prompt has no place for
            done = true;
            pending.add(new RunStep.Failed(new Failure.InvalidOutput("the model did not produce a valid answer"
                    + " for the request's " + name() + ": " + verdict.problem() + " (a raw prompt is not asked a"
                    + " second time). Write the format into the prompt, allow more tokens, or use the chat API.")));
            return;
        }
        LOG.info("model {}: the answer did not meet the request's {} ({}); asking once more", chat.model().id(),
                name(), verdict.problem());
        retried = true;
        firstUsage = finished.usage();
        String reply = content.toString();
        List<ToolCallRecord> replyCalls = calls.stream()
                .map(c -> new ToolCallRecord(c.id(), c.name(), c.argumentsJson())).toList();
        content = new StringBuilder();
        calls = new ArrayList<>();
        logprobs = new ArrayList<>();
        try {
            Run retry = retries.retry(chat, reply, replyCalls, contract.correction(verdict.problem()));
            current = retry;
            retry.start();
        } catch (FailureException e) {
            done = true;
            pending.add(new RunStep.Failed(e.failure()));
        }
    }

    private String name() {
        return switch (contract) {
            case AnswerContract.Json json -> json.schema().isPresent() ? "JSON schema" : "JSON object";
            case AnswerContract.ToolCall tool -> tool.name().map(n -> "call of " + n).orElse("tool call");
        };
    }

    @Override
    public void cancel(CancelReason reason) {
        current.cancel(reason);
    }

    @Override
    public Optional<CancelReason> cancelReason() {
        return current.cancelReason();
    }

    @Override
    public Optional<String> matchedStop() {
        return current.matchedStop();
    }

    @Override
    public boolean isDone() {
        return done && pending.isEmpty();
    }

    @Override
    public void close() {
        current.close();
    }
}
