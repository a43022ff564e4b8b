package io.rkllm.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.logging.LogText;
import io.rkllm.server.metrics.Metrics;
import io.rkllm.server.pipeline.Answer;
import io.rkllm.server.pipeline.ChatPipeline;
import io.rkllm.server.pipeline.PreparedChat;
import io.rkllm.server.pipeline.Run;
import io.rkllm.server.pipeline.RunStep;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import io.rkllm.server.pipeline.request.ChatRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every API (OpenAI, Ollama, Anthropic) does between parsing a request and encoding its answer:
 * prepare the run and reserve its place in the model's queue (every error so far is thrown before anything
 * is written), start it, then drain its steps, either as a stream (each piece written and flushed as it
 * comes, a heartbeat while the request waits or prefills, a vanished client aborts the run) or as one
 * collected {@link Answer}. The APIs only encode. Also the one place that records the access log details
 * and the metrics of a run.
 */
public final class RunDriver {
    private static final Logger LOG = LoggerFactory.getLogger(RunDriver.class);
    /**
     * Longest time a request goes without checking that its client is still there (queued, prefilling): a quarter
     * of a second, so that clients that hang up while queued (a stop button pressed on a busy board) give their
     * places back before others are turned away, and an abandoned prefill stops; a probe is one non-blocking read.
     */
    public static final Duration PROBE_EVERY = Duration.ofMillis(250);
    /** How long a stream's headers wait for the run's first step, so that an early refusal is a 4xx. */
    static final Duration HOLD_HEADERS = Duration.ofMillis(250);
    /** Shortest time between two checks (a non-blocking read) while tokens arrive. */
    static final long PROBE_GAP_NANOS = 50_000_000L;
    /** nginx's "client closed request", for the access log only: nobody receives it. */
    static final int CLIENT_CLOSED = 499;
    /** How an answer met the request's contract (JSON, a tool call): valid, repaired, retried, retried_repaired. */
    public static final String CHECK_HEADER = "X-RKLLM-Output-Check";
    /** Why an answer the runtime ended is not whole (runtime 1.3.0's FINISH at </think>). */
    public static final String INCOMPLETE_HEADER = "X-RKLLM-Incomplete";

    /** How one API writes a stream; one instance per response, so it may keep state (open blocks). */
    public interface StreamFormat {
        String contentType();

        /** Written as soon as the request is queued (a role chunk, message_start...); may be empty. */
        List<byte[]> opening();

        /** A heartbeat while nothing else is due: keeps proxies patient and reveals a gone client. */
        byte[] keepAlive();

        /**
         * An event of the answer, with the log probabilities of the tokens that made its step when the request asked
         * for them (empty otherwise, and for an API that has no place for them).
         */
        List<byte[]> output(OutputEvent event, List<TokenProbability> logprobs);

        /** The end of a complete answer: finish reason, usage, terminator. */
        List<byte[]> finished(RunStep.Finished finished, Run run);

        /** The error after the stream started; the stream closes after it. */
        byte[] failed(ApiException error);
    }

    /** Writes a complete non-streaming answer. */
    @FunctionalInterface
    public interface Answerer {
        void answer(Answer answer) throws Exception;
    }

    /** Writes the answer of one reserved run (which it starts). */
    @FunctionalInterface
    public interface Responder {
        void respond(Run run) throws Exception;
    }

    private final ChatPipeline pipeline;
    private final Duration keepAlive;
    private final Metrics metrics;

    public RunDriver(ChatPipeline pipeline, Duration keepAlive, Metrics metrics) {
        this.pipeline = pipeline;
        this.keepAlive = keepAlive;
        this.metrics = metrics;
    }

    /**
     * Prepares {@code request} and reserves its run (a failure is thrown before anything is written), lets
     * {@code responder} start it and write the answer, and cancels the run if the responder left it unfinished.
     */
    public void run(Context ctx, ChatRequest request, Responder responder) throws Exception {
        long arrived = System.nanoTime();
        PreparedChat chat = pipeline.prepare(request);
        ctx.attribute(AccessLog.MODEL, chat.model().id());
        Run run = pipeline.reserve(chat, arrived);
        try (run) {
            chat.notes().forEach(h -> ctx.header(h.name(), h.value()));
            responder.respond(run);
        } finally {
            run.cancelReason().ifPresent(reason -> metrics.aborts().cancelled(chat.model().id(), reason));
        }
    }

    /**
     * Commits the 200 and writes the run as {@code format} until it ends or the client goes away. A client
     * that closes its connection is noticed within {@link #PROBE_EVERY} (a non-blocking read), or a token while
     * tokens arrive, and its generation is cancelled.
     */
    public void stream(Context ctx, Run run, StreamFormat format) throws InterruptedException {
        ClientWatch client = new ClientWatch(new ClientProbe(ctx.req()));
        // started first: the engine renders and admits the prompt while the headers and the opening are written
        // (about a millisecond of every first token); a client gone meanwhile cancels it below
        run.start();
        StreamSink sink = null;
        try {
            // the engine refuses what only it can judge (a prompt its tokenizer finds too long, a token the
            // vocabulary lacks) as soon as it reads the request: waited for a moment, such a refusal is the 4xx
            // the route answers in its API's shape, not a 200 whose stream holds an error (the server's own
            // failures stay the stream's error event, as before)
            RunStep first = run.next(HOLD_HEADERS);
            if (first instanceof RunStep.Failed failed && !client.gone(first)) {
                ApiException refusal = FailureStatus.of(failed.failure());
                if (refusal.status() < 500) {
                    failedCheck(run, failed.failure());
                    throw refusal;
                }
            }
            sink = StreamSink.open(ctx.res(), format.contentType());
            for (byte[] bytes : format.opening()) {
                sink.send(bytes);
            }
            long lastSent = System.nanoTime();
            RunStep held = first;
            while (true) {
                long sinceSent = System.nanoTime() - lastSent;
                RunStep step = held != null ? held : run.next(Duration.ofNanos(Math.clamp(
                        keepAlive.toNanos() - sinceSent, 1_000_000L, PROBE_EVERY.toNanos())));
                held = null;
                if (client.gone(step)) {
                    throw new IOException("the client closed the connection");
                }
                switch (step) {
                    case RunStep.KeepAlive k -> {
                        if (System.nanoTime() - lastSent >= keepAlive.toNanos()) {
                            sink.send(format.keepAlive());
                        } else {
                            continue; // woke up only to check the client
                        }
                    }
                    case RunStep.Output out -> {
                        // the last tokens' log probabilities alone (their text came to nothing): an empty text
                        List<OutputEvent> events = !out.events().isEmpty() ? out.events()
                                : out.logprobs().isEmpty() ? List.of() : List.of(new OutputEvent.Content(""));
                        for (int i = 0; i < events.size(); i++) {
                            // the step's log probabilities go with its last event, as llama-server sends them
                            List<TokenProbability> logprobs = i == events.size() - 1 ? out.logprobs() : List.of();
                            for (byte[] bytes : format.output(events.get(i), logprobs)) {
                                sink.send(bytes);
                            }
                        }
                    }
                    case RunStep.Finished f -> {
                        finished(ctx, run, f);
                        if (f.check().isPresent() && format.contentType().equals("text/event-stream")) {
                            // the headers left long ago: the check's outcome goes in a comment clients skip
                            sink.send((": " + CHECK_HEADER + ": " + f.check().get() + "\n\n").getBytes(UTF_8));
                        }
                        if (f.incomplete().isPresent() && format.contentType().equals("text/event-stream")) {
                            sink.send((": " + INCOMPLETE_HEADER + ": " + f.incomplete().get() + "\n\n")
                                    .getBytes(UTF_8));
                        }
                        for (byte[] bytes : format.finished(f, run)) {
                            sink.send(bytes);
                        }
                        return;
                    }
                    case RunStep.Failed failed -> {
                        failedCheck(run, failed.failure());
                        ApiException error = FailureStatus.of(failed.failure());
                        AccessLog.error(ctx, error);
                        sink.send(format.failed(error));
                        return;
                    }
                }
                lastSent = System.nanoTime();
            }
        } catch (IOException clientGone) {
            run.cancel(CancelReason.CLIENT_GONE);
            AccessLog.disconnected(ctx);
        } catch (RuntimeException e) {
            if (sink == null) {
                throw e; // nothing written yet: the route's 500 in its API's shape
            }
            // the server's own failure after the stream began: the client reads the stream's error event (the
            // closing of the run cancels it), not a stream cut short that looks like a complete answer
            LOG.error("request failed while streaming: {} {}", ctx.method(), LogText.escape(ctx.path()), e);
            ApiException error = ApiException.internal("internal_error", "internal server error: " + e);
            AccessLog.error(ctx, error);
            try {
                sink.send(format.failed(error));
            } catch (IOException | RuntimeException unsent) {
                LOG.debug("the error event could not be sent: {}", unsent.toString());
            }
        }
    }

    /**
     * Starts the run, collects the whole answer of a non-streaming request and hands it to {@code answerer}. A
     * failed run throws its failure; a client that closed its connection meanwhile gets its run aborted and no
     * answer (status 499 in the access log only).
     */
    public void collect(Context ctx, Run run, Answerer answerer) throws Exception {
        run.start();
        ClientWatch client = new ClientWatch(new ClientProbe(ctx.req()));
        Duration wait = keepAlive.compareTo(PROBE_EVERY) < 0 ? keepAlive : PROBE_EVERY;
        Answer.Builder answer = new Answer.Builder();
        while (true) {
            RunStep step = run.next(wait);
            if (client.gone(step)) {
                run.cancel(CancelReason.CLIENT_GONE);
                AccessLog.disconnected(ctx);
                ctx.status(CLIENT_CLOSED);
                return;
            }
            switch (step) {
                case RunStep.KeepAlive k -> {
                }
                case RunStep.Output out -> answer.add(out);
                case RunStep.Finished f -> {
                    finished(ctx, run, f);
                    f.check().ifPresent(check -> ctx.header(CHECK_HEADER, check));
                    f.incomplete().ifPresent(note -> ctx.header(INCOMPLETE_HEADER, note));
                    answerer.answer(answer.build(f, run.matchedStop()));
                    return;
                }
                case RunStep.Failed failed -> {
                    failedCheck(run, failed.failure());
                    throw new FailureException(failed.failure());
                }
            }
        }
    }

    private void finished(Context ctx, Run run, RunStep.Finished f) {
        AccessLog.record(ctx, f.usage(), f.finishReason());
        metrics.generations().finished(run.modelId(), f.finishReason(), f.usage());
        f.check().ifPresent(check -> metrics.generations().checked(run.modelId(), check));
    }

    private void failedCheck(Run run, Failure failure) {
        if (failure instanceof Failure.InvalidOutput) {
            metrics.generations().checked(run.modelId(), "failed");
        }
    }

    /**
     * Asks the probe whether the client is gone: on every idle wake-up (at least every
     * {@link #PROBE_EVERY}) and, while steps arrive, at most every {@link #PROBE_GAP_NANOS}.
     */
    private static final class ClientWatch {
        private final ClientProbe probe;
        private long lastProbe = System.nanoTime();

        ClientWatch(ClientProbe probe) {
            this.probe = probe;
        }

        boolean gone(RunStep step) {
            long now = System.nanoTime();
            if (!(step instanceof RunStep.KeepAlive) && now - lastProbe < PROBE_GAP_NANOS) {
                return false;
            }
            lastProbe = now;
            return probe.gone();
        }
    }
}
