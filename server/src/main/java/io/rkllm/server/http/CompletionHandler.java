package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.rkllm.server.api.ChatRequestParser;
import io.rkllm.server.engine.CancelReason;
import io.rkllm.server.pipeline.ChatPipeline;
import io.rkllm.server.pipeline.ChatRequest;
import io.rkllm.server.pipeline.ChatRun;
import io.rkllm.server.pipeline.PreparedChat;
import io.rkllm.server.pipeline.output.OutputEvent;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * POST /v1/chat/completions and /v1/completions: validates everything before answering, then
 * streams SSE chunks (with keep-alives while queued or prefilling) or returns one JSON body. Either
 * way a client that closes its connection is noticed within about a second, or a token while tokens
 * arrive, and its generation is cancelled.
 */
final class CompletionHandler {
    static final String CHAT_ID_HEADER = "X-OpenWebUI-Chat-Id";
    /** Longest time a request goes without checking that its client is still there (queued, prefilling). */
    static final Duration PROBE_EVERY = Duration.ofSeconds(1);
    /** Shortest time between two checks (a non-blocking read) while tokens arrive. */
    static final long PROBE_GAP_NANOS = 50_000_000L;
    /** nginx's "client closed request", for the access log only: nobody receives it. */
    static final int CLIENT_CLOSED = 499;

    private final ChatPipeline pipeline;
    private final ChatRequestParser parser;
    private final ObjectMapper mapper;
    private final Duration keepAlive;
    private final boolean legacy;

    CompletionHandler(ChatPipeline pipeline, ChatRequestParser parser, ObjectMapper mapper, Duration keepAlive,
                      boolean legacy) {
        this.pipeline = pipeline;
        this.parser = parser;
        this.mapper = mapper;
        this.keepAlive = keepAlive;
        this.legacy = legacy;
    }

    void handle(Context ctx) throws Exception {
        byte[] body = ctx.bodyAsBytes();
        ChatRequest request = legacy ? parser.parseCompletion(body)
                : parser.parseChat(body, Optional.ofNullable(ctx.header(CHAT_ID_HEADER)));
        PreparedChat chat = pipeline.prepare(request);
        ctx.attribute(AccessLog.MODEL, chat.model().id());
        ChatRun run = pipeline.start(chat);
        chat.notes().forEach(h -> ctx.header(h.name(), h.value()));
        String id = (legacy ? "cmpl-" : "chatcmpl-") + UUID.randomUUID().toString().replace("-", "");
        long created = Instant.now().getEpochSecond();
        try {
            if (request.stream()) {
                stream(ctx, run, new ChunkEncoder(id, created, chat.model().id(), legacy),
                        request.includeUsage());
            } else {
                respond(ctx, run, id, created);
            }
        } finally {
            if (!run.isDone()) {
                run.cancel(CancelReason.CLIENT_GONE);
            }
        }
    }

    private void stream(Context ctx, ChatRun run, ChunkEncoder chunks, boolean includeUsage)
            throws InterruptedException {
        ClientWatch client = new ClientWatch(new ClientProbe(ctx.req()));
        try {
            SseSink sse = SseSink.open(ctx.res());
            sse.send(legacy ? chunks.text("", null) : chunks.role());
            long lastSent = System.nanoTime();
            while (true) {
                long sinceSent = System.nanoTime() - lastSent;
                ChatRun.Step step = run.next(Duration.ofNanos(Math.clamp(keepAlive.toNanos() - sinceSent,
                        1_000_000L, PROBE_EVERY.toNanos())));
                if (client.gone(step)) {
                    throw new IOException("the client closed the connection");
                }
                switch (step) {
                    case ChatRun.Step.KeepAlive k -> {
                        if (System.nanoTime() - lastSent >= keepAlive.toNanos()) {
                            sse.send(SseSink.KEEP_ALIVE);
                        } else {
                            continue; // woke up only to check the client
                        }
                    }
                    case ChatRun.Step.Output out -> {
                        for (OutputEvent event : out.events()) {
                            for (byte[] chunk : encode(chunks, event)) {
                                sse.send(chunk);
                            }
                        }
                    }
                    case ChatRun.Step.Finished f -> {
                        sse.send(legacy ? chunks.text("", f.finishReason()) : chunks.finish(f.finishReason()));
                        if (includeUsage) {
                            sse.send(chunks.usage(f.usage()));
                        }
                        sse.send(SseSink.DONE);
                        AccessLog.record(ctx, f.usage(), f.finishReason());
                        return;
                    }
                    case ChatRun.Step.Failed failed -> {
                        sse.send(("data: " + mapper.writeValueAsString(ResponseJson.error(mapper, failed.error()))
                                + "\n\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                        AccessLog.error(ctx, failed.error());
                        return;
                    }
                }
                lastSent = System.nanoTime();
            }
        } catch (IOException clientGone) {
            run.cancel(CancelReason.CLIENT_GONE);
            AccessLog.disconnected(ctx);
        }
    }

    private List<byte[]> encode(ChunkEncoder chunks, OutputEvent event) {
        return switch (event) {
            case OutputEvent.Content c -> List.of(legacy ? chunks.text(c.text(), null) : chunks.content(c.text()));
            case OutputEvent.Reasoning r -> legacy ? List.of() : List.of(chunks.reasoning(r.text()));
            case OutputEvent.ToolCall t -> java.util.Arrays.asList(chunks.toolCall(t));
        };
    }

    private void respond(Context ctx, ChatRun run, String id, long created) throws Exception {
        ClientWatch client = new ClientWatch(new ClientProbe(ctx.req()));
        Duration wait = keepAlive.compareTo(PROBE_EVERY) < 0 ? keepAlive : PROBE_EVERY;
        List<OutputEvent> events = new ArrayList<>();
        while (true) {
            ChatRun.Step step = run.next(wait);
            if (client.gone(step)) {
                run.cancel(CancelReason.CLIENT_GONE);
                AccessLog.disconnected(ctx);
                ctx.status(CLIENT_CLOSED);
                return;
            }
            switch (step) {
                case ChatRun.Step.KeepAlive k -> {
                }
                case ChatRun.Step.Output out -> events.addAll(out.events());
                case ChatRun.Step.Finished f -> {
                    ctx.status(200).contentType("application/json").result(mapper.writeValueAsBytes(
                            ResponseJson.completion(mapper, id, created, run.chat().model().id(), legacy, events,
                                    f.finishReason(), f.usage())));
                    AccessLog.record(ctx, f.usage(), f.finishReason());
                    return;
                }
                case ChatRun.Step.Failed failed -> throw failed.error();
            }
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

        boolean gone(ChatRun.Step step) {
            long now = System.nanoTime();
            if (!(step instanceof ChatRun.Step.KeepAlive) && now - lastProbe < PROBE_GAP_NANOS) {
                return false;
            }
            lastProbe = now;
            return probe.gone();
        }
    }
}
