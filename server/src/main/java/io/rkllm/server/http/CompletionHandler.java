package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.ChatRequestParser;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.ChatRun;
import io.rkllm.server.pipeline.output.OutputEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * POST /v1/chat/completions and /v1/completions: validates everything before answering, then
 * streams SSE chunks (with keep-alives while queued or prefilling) or returns one JSON body. Either
 * way a client that closes its connection is noticed within about a second, or a token while tokens
 * arrive, and its generation is cancelled ({@link RunDriver}).
 */
final class CompletionHandler {
    static final String CHAT_ID_HEADER = "X-OpenWebUI-Chat-Id";

    private final RunDriver driver;
    private final ChatRequestParser parser;
    private final ObjectMapper mapper;
    private final boolean legacy;

    CompletionHandler(RunDriver driver, ChatRequestParser parser, ObjectMapper mapper, boolean legacy) {
        this.driver = driver;
        this.parser = parser;
        this.mapper = mapper;
        this.legacy = legacy;
    }

    void handle(Context ctx) throws Exception {
        byte[] body = ctx.bodyAsBytes();
        ChatRequest request = legacy ? parser.parseCompletion(body)
                : parser.parseChat(body, Optional.ofNullable(ctx.header(CHAT_ID_HEADER)));
        String id = (legacy ? "cmpl-" : "chatcmpl-") + UUID.randomUUID().toString().replace("-", "");
        long created = Instant.now().getEpochSecond();
        driver.run(ctx, request, started -> {
            String model = started.modelId();
            if (request.stream()) {
                driver.stream(ctx, started, new Sse(new ChunkEncoder(id, created, model, legacy),
                        request.includeUsage()));
            } else {
                driver.collect(ctx, started, answer -> ctx.status(200).contentType("application/json")
                        .result(mapper.writeValueAsBytes(ResponseJson.completion(mapper, id, created, model, legacy,
                                answer.events(), answer.finished().finishReason(), answer.finished().usage()))));
            }
        });
    }

    /** The OpenAI chunk stream: role chunk, deltas, finish chunk, usage chunk if asked, [DONE]. */
    private final class Sse implements RunDriver.StreamFormat {
        private final ChunkEncoder chunks;
        private final boolean includeUsage;

        Sse(ChunkEncoder chunks, boolean includeUsage) {
            this.chunks = chunks;
            this.includeUsage = includeUsage;
        }

        @Override
        public String contentType() {
            return "text/event-stream";
        }

        @Override
        public List<byte[]> opening() {
            return List.of(legacy ? chunks.text("", null) : chunks.role());
        }

        @Override
        public byte[] keepAlive() {
            return SseSink.KEEP_ALIVE;
        }

        @Override
        public List<byte[]> output(OutputEvent event) {
            return switch (event) {
                case OutputEvent.Content c -> List.of(legacy ? chunks.text(c.text(), null) : chunks.content(c.text()));
                case OutputEvent.Reasoning r -> legacy ? List.of() : List.of(chunks.reasoning(r.text()));
                case OutputEvent.ToolCall t -> Arrays.asList(chunks.toolCall(t));
            };
        }

        @Override
        public List<byte[]> finished(ChatRun.Step.Finished f, RunDriver.Started started) {
            List<byte[]> out = new ArrayList<>();
            out.add(legacy ? chunks.text("", f.finishReason()) : chunks.finish(f.finishReason()));
            if (includeUsage) {
                out.add(chunks.usage(f.usage()));
            }
            out.add(SseSink.DONE);
            return out;
        }

        @Override
        public byte[] failed(ApiException error) {
            try {
                return ("data: " + mapper.writeValueAsString(ResponseJson.error(mapper, error)) + "\n\n")
                        .getBytes(StandardCharsets.UTF_8);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
