package io.rkllm.server.http.openai;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.http.ConversationHeader;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.RunDriver;
import io.rkllm.server.http.Sse;
import io.rkllm.server.pipeline.Answer;
import io.rkllm.server.pipeline.Run;
import io.rkllm.server.pipeline.RunStep;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import io.rkllm.server.pipeline.request.ChatRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * POST /v1/chat/completions and /v1/completions: validates everything before answering, then streams SSE chunks
 * (with keep-alives while queued or prefilling) or returns one JSON body. Either way a client that closes its
 * connection is noticed within about a second, or a token while tokens arrive, and its generation is cancelled
 * ({@link RunDriver}). The two differ only in their chunks and bodies ({@link Style}).
 */
final class OpenAiHandler {

    /** What a chat completion and a legacy text completion write differently. */
    private interface Style {
        String idPrefix();

        byte[] opening(ChunkEncoder chunks);

        List<byte[]> output(ChunkEncoder chunks, OutputEvent event, List<TokenProbability> logprobs);

        byte[] finish(ChunkEncoder chunks, String reason);

        ObjectNode body(ObjectMapper mapper, String id, long created, String model, Answer answer);
    }

    /** Chat: a role chunk first, then deltas of content, reasoning and tool calls. */
    private static final Style CHAT = new Style() {
        @Override
        public String idPrefix() {
            return "chatcmpl-";
        }

        @Override
        public byte[] opening(ChunkEncoder chunks) {
            return chunks.role();
        }

        @Override
        public List<byte[]> output(ChunkEncoder chunks, OutputEvent event, List<TokenProbability> logprobs) {
            return switch (event) {
                case OutputEvent.Content c -> List.of(chunks.content(c.text(), logprobs));
                case OutputEvent.Reasoning r -> List.of(chunks.reasoning(r.text(), logprobs));
                case OutputEvent.ToolCall t -> Arrays.asList(chunks.toolCall(t, logprobs));
                case OutputEvent.CallDelta d -> Arrays.asList(chunks.callDelta(d, logprobs));
            };
        }

        @Override
        public byte[] finish(ChunkEncoder chunks, String reason) {
            return chunks.finish(reason);
        }

        @Override
        public ObjectNode body(ObjectMapper mapper, String id, long created, String model, Answer answer) {
            return ResponseJson.chatCompletion(mapper, id, created, model, answer);
        }
    };

    /** Legacy completions: text chunks only (no reasoning, no tools). */
    private static final Style TEXT = new Style() {
        @Override
        public String idPrefix() {
            return "cmpl-";
        }

        @Override
        public byte[] opening(ChunkEncoder chunks) {
            return chunks.text("", null, List.of());
        }

        @Override
        public List<byte[]> output(ChunkEncoder chunks, OutputEvent event, List<TokenProbability> logprobs) {
            return event instanceof OutputEvent.Content c ? List.of(chunks.text(c.text(), null, logprobs))
                    : List.of();
        }

        @Override
        public byte[] finish(ChunkEncoder chunks, String reason) {
            return chunks.text("", reason, List.of());
        }

        @Override
        public ObjectNode body(ObjectMapper mapper, String id, long created, String model, Answer answer) {
            return ResponseJson.textCompletion(mapper, id, created, model, answer);
        }
    };

    private final RunDriver driver;
    private final ChatRequestParser parser;
    private final ObjectMapper mapper;
    private final ErrorShape errors;

    OpenAiHandler(RunDriver driver, ChatRequestParser parser, ObjectMapper mapper, ErrorShape errors) {
        this.driver = driver;
        this.parser = parser;
        this.mapper = mapper;
        this.errors = errors;
    }

    void chat(Context ctx) throws Exception {
        respond(ctx, parser.parseChat(ctx.bodyAsBytes(), ConversationHeader.of(ctx)), CHAT);
    }

    void completions(Context ctx) throws Exception {
        respond(ctx, parser.parseCompletion(ctx.bodyAsBytes()), TEXT);
    }

    private void respond(Context ctx, ChatRequest request, Style style) throws Exception {
        String id = style.idPrefix() + UUID.randomUUID().toString().replace("-", "");
        long created = Instant.now().getEpochSecond();
        driver.run(ctx, request, run -> {
            String model = run.modelId();
            if (request.stream()) {
                ChunkEncoder chunks = new ChunkEncoder(id, created, model, style == TEXT);
                driver.stream(ctx, run, new Chunks(style, chunks, request.includeUsage()));
            } else {
                driver.collect(ctx, run, answer -> ctx.status(200).contentType("application/json")
                        .result(mapper.writeValueAsBytes(style.body(mapper, id, created, model, answer))));
            }
        });
    }

    /** The chunk stream: opening chunk, output chunks, finish chunk, usage chunk if asked, [DONE]. */
    private final class Chunks implements RunDriver.StreamFormat {
        private final Style style;
        private final ChunkEncoder chunks;
        private final boolean includeUsage;

        Chunks(Style style, ChunkEncoder chunks, boolean includeUsage) {
            this.style = style;
            this.chunks = chunks;
            this.includeUsage = includeUsage;
        }

        @Override
        public String contentType() {
            return "text/event-stream";
        }

        @Override
        public List<byte[]> opening() {
            return List.of(style.opening(chunks));
        }

        @Override
        public byte[] keepAlive() {
            return Sse.KEEP_ALIVE;
        }

        @Override
        public List<byte[]> output(OutputEvent event, List<TokenProbability> logprobs) {
            return style.output(chunks, event, logprobs);
        }

        @Override
        public List<byte[]> finished(RunStep.Finished f, Run run) {
            List<byte[]> out = new ArrayList<>();
            out.add(style.finish(chunks, f.finishReason()));
            if (includeUsage) {
                out.add(chunks.usage(f.usage()));
            }
            out.add(Sse.DONE);
            return out;
        }

        @Override
        public byte[] failed(ApiException error) {
            return Sse.data(mapper, errors.body(error));
        }
    }
}
