package io.rkllm.server.pipeline;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.engine.Generation;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.Reservation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.StopReason;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.OutputScanner;
import io.rkllm.server.pipeline.output.TokenProbability;
import io.rkllm.server.pipeline.tasks.TaskAnswers;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request's run, from its place in the queue to its last step: the route {@link #start()}s it when it is
 * ready to write, then reads steps (engine events run through the output scanner, with the watchdogs enforced)
 * until the answer is finished or failed, and closes it, which cancels what has not ended. One thread reads it;
 * any thread may {@link #cancel}.
 */
public final class ChatRun implements Run {
    private static final Logger LOG = LoggerFactory.getLogger(ChatRun.class);

    private final PreparedChat chat;
    /** Where the run waits to be started; null for an answer known without inference. */
    private final Reservation place;
    private final ChatPrompt prompt;
    private final TokenEstimator estimator;
    private Generation generation;
    private CancelReason cancelledBeforeStart;
    private final ServerConfig.Timeouts timeouts;
    private final Duration queueTimeout;
    private final FailureWording wording;
    /** Set by the pipeline before the route sees the run. */
    private long arrivedNanos = System.nanoTime();
    private long loadNanos;
    private final OutputScanner scanner;
    private final EditorStopWatch editorStops;
    /** An editor's stop ended the answer: what came after is dropped, and it ends as if at its limit. */
    private boolean stoppedForEditor;
    private final Deque<RunStep> pending = new ArrayDeque<>();
    private final long submittedAt = System.nanoTime();
    private long startedAt;
    private long firstTokenAt;
    private long lastTokenAt;
    private long queueMillis;
    private int tokens;
    private int tokensAtStop = -1;
    /** Tokens generated when the last reasoning text came: the reasoning's share of the completion. */
    private int reasoningTokens;
    private final IncompleteAnswer completeness = new IncompleteAnswer();
    private boolean done;
    private boolean watchdogFired;
    /** A task's output is held until the end, to check its JSON shape before anything is sent. */
    private final List<OutputEvent> heldTaskOutput = new ArrayList<>();
    private final LogprobTrail logprobs = new LogprobTrail();

    /**
     * @param prompt the chat as the engine runs it
     * @param estimator calibrated with what the run prefilled, when the backend knows the text exactly
     */
    ChatRun(PreparedChat chat, Reservation place, ChatPrompt prompt, TokenEstimator estimator,
            ServerConfig.Timeouts timeouts, Duration queueTimeout) {
        this.chat = chat;
        this.place = place;
        this.prompt = prompt;
        this.estimator = estimator;
        this.timeouts = timeouts;
        this.queueTimeout = queueTimeout;
        this.wording = new FailureWording(timeouts, queueTimeout);
        this.scanner = new OutputScanner(chat.scanner());
        this.editorStops = new EditorStopWatch(chat.request().output().editorStops());
    }

    private boolean holdsTaskOutput() {
        return chat.task().isPresent() && !chat.request().stream();
    }

    /** A run answered without inference (a derived task answer): the steps are known already. */
    static ChatRun answered(PreparedChat chat, String content) {
        ChatRun run = new ChatRun(chat, null, null, null, null, Duration.ZERO);
        run.pending.add(new RunStep.Output(List.of(new OutputEvent.Content(content))));
        run.pending.add(new RunStep.Finished("stop", Usage.NONE));
        run.done = true;
        return run;
    }

    @Override
    public PreparedChat chat() {
        return chat;
    }

    /** When its request arrived, and what taking its place took (the model's load included). */
    void timed(long arrivedNanos, long loadNanos) {
        this.arrivedNanos = arrivedNanos;
        this.loadNanos = loadNanos;
    }

    @Override
    public long arrivedNanos() {
        return arrivedNanos;
    }

    @Override
    public long loadNanos() {
        return loadNanos;
    }

    /** Queues the run in its reserved place: the worker may take it at once. Nothing for a known answer. */
    @Override
    public synchronized void start() {
        if (place == null || generation != null || cancelledBeforeStart != null) {
            return;
        }
        generation = place.submit(prompt, chat.maxTokens());
    }

    @Override
    public void cancel(CancelReason reason) {
        Generation g;
        synchronized (this) {
            g = generation;
            if (g == null && place != null && cancelledBeforeStart == null) {
                cancelledBeforeStart = reason;
                place.release();
            }
        }
        if (g != null) {
            g.cancel(reason);
        }
    }

    /** Cancels the run if it has not ended (the client is gone, or the route gave up on it). */
    @Override
    public void close() {
        if (!isDone()) {
            cancel(CancelReason.CLIENT_GONE);
        }
    }

    private synchronized Generation generation() {
        if (generation == null && cancelledBeforeStart == null) {
            throw new IllegalStateException("the run was not started");
        }
        return generation;
    }

    @Override
    public Optional<CancelReason> cancelReason() {
        synchronized (this) {
            if (cancelledBeforeStart != null) {
                return Optional.of(cancelledBeforeStart);
            }
        }
        return generation == null ? Optional.empty() : generation.cancelReason();
    }

    @Override
    public Optional<String> matchedStop() {
        return Optional.ofNullable(scanner.matchedStop());
    }

    @Override
    public boolean isDone() {
        return done && pending.isEmpty();
    }

    @Override
    public RunStep next(Duration keepAlive) throws InterruptedException {
        while (pending.isEmpty()) {
            if (done) {
                throw new IllegalStateException("the run is over");
            }
            long now = System.nanoTime();
            long deadline = watchdogDeadline();
            long wait = Math.min(keepAlive.toNanos(), Math.max(0, deadline - now));
            Generation g = generation();
            if (g == null) {
                done = true;
                pending.add(new RunStep.Failed(wording.forClient(new Failure.Cancelled(cancelledBeforeStart,
                        cancelledBeforeStart.description()))));
                break;
            }
            GenerationEvent event = g.poll(Duration.ofNanos(wait));
            if (!watchdogFired && System.nanoTime() >= deadline) {
                // checked whether or not an event came: a steady stream must not postpone the total timeout
                watchdogFired = true;
                g.cancel(expiredWatchdog());
            }
            if (event == null) {
                return new RunStep.KeepAlive();
            }
            handle(event);
        }
        return pending.poll();
    }

    private void handle(GenerationEvent event) {
        switch (event) {
            case GenerationEvent.Started started -> {
                startedAt = System.nanoTime();
                queueMillis = started.queueMillis();
            }
            case GenerationEvent.Logprob token -> {
                if (!scanner.stopped() && !stoppedForEditor) {
                    logprobs.add(token.token());
                }
            }
            case GenerationEvent.Text text -> {
                long now = System.nanoTime();
                if (firstTokenAt == 0) {
                    firstTokenAt = now;
                }
                lastTokenAt = now;
                tokens = text.tokens();
                if (scanner.stopped() || stoppedForEditor) {
                    return;
                }
                List<OutputEvent> out = scanner.feed(text.text());
                Optional<List<OutputEvent>> cut = scanner.stopped() ? Optional.empty()
                        : editorStops.check(out, now - firstTokenAt);
                if (cut.isPresent()) {
                    out = cut.get();
                    stoppedForEditor = true;
                    tokensAtStop = tokens;
                    cancel(CancelReason.STOP_STRING);
                }
                if (out.stream().anyMatch(e -> e instanceof OutputEvent.Reasoning)) {
                    reasoningTokens = tokens;
                }
                if (scanner.stopped()) {
                    tokensAtStop = tokens;
                    logprobs.dropStop(scanner.matchedStop());
                    cancel(CancelReason.STOP_STRING);
                }
                emit(out);
            }
            case GenerationEvent.Done d -> {
                // the runtime's exact count of a known text: the next estimates get closer
                d.prefilledText().ifPresent(text -> estimator.calibrate(chat.model().id(), text,
                        d.stats().prefillTokens()));
                if (!scanner.stopped() && !stoppedForEditor) {
                    emit(scanner.finish());
                    List<TokenProbability> left = logprobs.take(); // of text that came to nothing (a closing tag)
                    if (!left.isEmpty() && !holdsTaskOutput()) {
                        pending.add(new RunStep.Output(List.of(), left));
                    }
                }
                RunStep.Finished finished = finished(d);
                if (holdsTaskOutput()) {
                    String answer = taskContent();
                    boolean good = TaskAnswers.hasExpectedShape(chat.task().get(), answer);
                    Optional<String> derived = good ? Optional.empty() : TaskAnswers.derive(chat.task().get(),
                            chat.conversation().newMessages().getLast().content());
                    pending.add(new RunStep.Output(derived.isPresent()
                            ? List.of(new OutputEvent.Content(derived.get())) : List.copyOf(heldTaskOutput)));
                    if (derived.isPresent()) {
                        finished = new RunStep.Finished("stop", finished.usage());
                    }
                }
                pending.add(finished);
                done = true;
            }
            case GenerationEvent.Failed f -> {
                Optional<String> derived = chat.task().flatMap(kind -> TaskAnswers.derive(kind,
                        chat.conversation().newMessages().getLast().content()));
                boolean clientGone = f.failure() instanceof Failure.Cancelled c
                        && c.reason() == CancelReason.CLIENT_GONE;
                if (derived.isPresent() && !clientGone) {
                    // a task that could not run (preempted, no room next to the cached chat) is still answered
                    pending.add(new RunStep.Output(List.of(new OutputEvent.Content(derived.get()))));
                    pending.add(new RunStep.Finished("stop", Usage.withoutInference(queueMillis)));
                } else {
                    pending.add(new RunStep.Failed(wording.forClient(f.failure())));
                }
                done = true;
            }
        }
    }

    private void emit(List<OutputEvent> events) {
        List<OutputEvent> out = chat.request().parallelToolCalls() ? events : oneToolCall(events);
        if (out.isEmpty()) {
            return;
        }
        completeness.observe(out);
        if (holdsTaskOutput()) {
            heldTaskOutput.addAll(out);
        } else {
            pending.add(new RunStep.Output(out, logprobs.take()));
        }
    }

    /** With parallel_tool_calls false, the answer's first tool call and no other. */
    private List<OutputEvent> oneToolCall(List<OutputEvent> events) {
        List<OutputEvent> kept = new ArrayList<>(events.size());
        for (OutputEvent e : events) {
            boolean later = e instanceof OutputEvent.ToolCall t && t.index() > 0
                    || e instanceof OutputEvent.CallDelta d && d.index() > 0;
            if (!later) {
                kept.add(e);
            }
        }
        return kept;
    }

    private String taskContent() {
        StringBuilder s = new StringBuilder();
        for (OutputEvent e : heldTaskOutput) {
            if (e instanceof OutputEvent.Content c) {
                s.append(c.text());
            }
        }
        return s.toString();
    }

    private RunStep.Finished finished(GenerationEvent.Done done) {
        String reason;
        if (scanner.stopped()) {
            reason = "stop";
        } else if (stoppedForEditor) {
            reason = "length"; // llama-server's stop type "limit"
        } else if (done.reason() == StopReason.LENGTH && scanner.callCut()) {
            reason = "length"; // a call cut by the limit: not one to run
        } else if (scanner.toolCallCount() > 0) {
            reason = "tool_calls";
        } else if (done.reason() == StopReason.LENGTH) {
            reason = "length";
        } else if (done.reason() == StopReason.END && completeness.isReasoningOnly()) {
            reason = "length";
            LOG.warn("model {}: the answer ended after its reasoning with no content ({}); sent as"
                    + " finish_reason length. Runtime 1.3.0 is reported to end thinking runs at </think>:"
                    + " runtime.thinking_flag auto avoids it for models with a chat template; 1.2.3 is not affected",
                    chat.model().id(), done.runtimeSettings());
        } else {
            reason = "stop";
        }
        Optional<String> incomplete = reason.equals("length") && done.reason() == StopReason.END
                && !stoppedForEditor ? Optional.of(IncompleteAnswer.NOTE) : Optional.empty();
        GenerationStats perf = done.stats();
        int completion;
        if (tokensAtStop >= 0) {
            completion = tokensAtStop;
        } else if (done.reason() == StopReason.END) {
            completion = perf.generateTokens();
        } else {
            completion = done.reason() == StopReason.LENGTH && chat.maxTokens() > 0
                    ? Math.min(chat.maxTokens(), Math.max(tokens, perf.generateTokens())) : tokens;
        }
        int reused = done.reusedTokens();
        long ttft = firstTokenAt == 0 ? -1 : (firstTokenAt - submittedAt) / 1_000_000;
        return new RunStep.Finished(reason, new Usage(perf.prefillTokens() + reused, completion, reused,
                perf.prefillTokens(), perf.prefillMs(), perf.generateMs(), queueMillis, ttft,
                Math.min(reasoningTokens, completion)), Optional.empty(), incomplete);
    }

    private long watchdogDeadline() {
        long far = Long.MAX_VALUE;
        if (watchdogFired) {
            return far;
        }
        if (startedAt == 0) {
            return submittedAt + queueTimeout.toNanos();
        }
        long deadline = far;
        if (!timeouts.total().isZero()) {
            deadline = Math.min(deadline, submittedAt + timeouts.total().toNanos());
        }
        if (firstTokenAt == 0 && !timeouts.firstToken().isZero()) {
            deadline = Math.min(deadline, startedAt + timeouts.firstToken().toNanos());
        }
        if (firstTokenAt != 0 && !timeouts.silence().isZero()) {
            deadline = Math.min(deadline, lastTokenAt + timeouts.silence().toNanos());
        }
        return deadline;
    }

    private CancelReason expiredWatchdog() {
        long now = System.nanoTime();
        if (startedAt == 0) {
            return CancelReason.QUEUE_TIMEOUT;
        }
        if (!timeouts.total().isZero() && now >= submittedAt + timeouts.total().toNanos()) {
            return CancelReason.TOTAL_TIMEOUT;
        }
        return firstTokenAt == 0 ? CancelReason.FIRST_TOKEN_TIMEOUT : CancelReason.SILENCE_TIMEOUT;
    }
}
