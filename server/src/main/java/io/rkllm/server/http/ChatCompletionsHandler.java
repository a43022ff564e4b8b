package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.ChatRequestParser;
import io.rkllm.server.pipeline.ChatRun;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.request.ChatRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * POST /v1/chat/completions: validates everything before answering, then streams SSE chunks (with keep-alives
 * while queued or prefilling) or returns one JSON body. Either way a client that closes its connection is
 * noticed within about a second, or a token while tokens arrive, and its generation is cancelled
 * ({@link RunDriver}).
 */
final class ChatCompletionsHandler {
    static final String CHAT_ID_HEADER = "X-OpenWebUI-Chat-Id";

    private final RunDriver driver;
    private final ChatRequestParser parser;
    private final ObjectMapper mapper;
    private final ErrorBodies errors;

    ChatCompletionsHandler(RunDriver driver, ChatRequestParser parser, ObjectMapper mapper, ErrorBodies errors) {
        this.driver = driver;
        this.parser = parser;
        this.mapper = mapper;
        this.errors = errors;
    }

    void handle(Context ctx) throws Exception {
        ChatRequest request = parser.parseChat(ctx.bodyAsBytes(), Optional.ofNullable(ctx.header(CHAT_ID_HEADER)));
        String id = "chatcmpl-" + UUID.randomUUID().toString().replace("-", "");
        long created = Instant.now().getEpochSecond();
        driver.run(ctx, request, started -> {
            String model = started.modelId();
            if (request.stream()) {
                driver.stream(ctx, started, new Chunks(new ChunkEncoder(id, created, model, false),
                        request.includeUsage()));
            } else {
                driver.collect(ctx, started, answer -> ctx.status(200).contentType("application/json")
                        .result(mapper.writeValueAsBytes(ResponseJson.chatCompletion(mapper, id, created, model,
                                answer))));
            }
        });
    }

    /** The chat chunk stream: role chunk, deltas, finish chunk, usage chunk if asked, [DONE]. */
    private final class Chunks implements RunDriver.StreamFormat {
        private final ChunkEncoder chunks;
        private final boolean includeUsage;

        Chunks(ChunkEncoder chunks, boolean includeUsage) {
            this.chunks = chunks;
            this.includeUsage = includeUsage;
        }

        @Override
        public String contentType() {
            return "text/event-stream";
        }

        @Override
        public List<byte[]> opening() {
            return List.of(chunks.role());
        }

        @Override
        public byte[] keepAlive() {
            return Sse.KEEP_ALIVE;
        }

        @Override
        public List<byte[]> output(OutputEvent event) {
            return switch (event) {
                case OutputEvent.Content c -> List.of(chunks.content(c.text()));
                case OutputEvent.Reasoning r -> List.of(chunks.reasoning(r.text()));
                case OutputEvent.ToolCall t -> Arrays.asList(chunks.toolCall(t));
            };
        }

        @Override
        public List<byte[]> finished(ChatRun.Step.Finished f, RunDriver.Started started) {
            List<byte[]> out = new ArrayList<>();
            out.add(chunks.finish(f.finishReason()));
            if (includeUsage) {
                out.add(chunks.usage(f.usage()));
            }
            out.add(Sse.DONE);
            return out;
        }

        @Override
        public byte[] failed(ApiException error) {
            return Sse.data(mapper, errors.openAi(error));
        }
    }
}
