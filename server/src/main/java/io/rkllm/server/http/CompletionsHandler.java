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
import java.util.List;
import java.util.UUID;

/** POST /v1/completions, the legacy text completion: one prompt in, text chunks out (no reasoning, no tools). */
final class CompletionsHandler {
    private final RunDriver driver;
    private final ChatRequestParser parser;
    private final ObjectMapper mapper;
    private final ErrorBodies errors;

    CompletionsHandler(RunDriver driver, ChatRequestParser parser, ObjectMapper mapper, ErrorBodies errors) {
        this.driver = driver;
        this.parser = parser;
        this.mapper = mapper;
        this.errors = errors;
    }

    void handle(Context ctx) throws Exception {
        ChatRequest request = parser.parseCompletion(ctx.bodyAsBytes());
        String id = "cmpl-" + UUID.randomUUID().toString().replace("-", "");
        long created = Instant.now().getEpochSecond();
        driver.run(ctx, request, started -> {
            String model = started.modelId();
            if (request.stream()) {
                driver.stream(ctx, started, new TextChunks(new ChunkEncoder(id, created, model, true),
                        request.includeUsage()));
            } else {
                driver.collect(ctx, started, answer -> ctx.status(200).contentType("application/json")
                        .result(mapper.writeValueAsBytes(ResponseJson.textCompletion(mapper, id, created, model,
                                answer))));
            }
        });
    }

    /** The text_completion chunk stream: text chunks, a finish chunk, usage if asked, [DONE]. */
    private final class TextChunks implements RunDriver.StreamFormat {
        private final ChunkEncoder chunks;
        private final boolean includeUsage;

        TextChunks(ChunkEncoder chunks, boolean includeUsage) {
            this.chunks = chunks;
            this.includeUsage = includeUsage;
        }

        @Override
        public String contentType() {
            return "text/event-stream";
        }

        @Override
        public List<byte[]> opening() {
            return List.of(chunks.text("", null));
        }

        @Override
        public byte[] keepAlive() {
            return Sse.KEEP_ALIVE;
        }

        @Override
        public List<byte[]> output(OutputEvent event) {
            return event instanceof OutputEvent.Content c ? List.of(chunks.text(c.text(), null)) : List.of();
        }

        @Override
        public List<byte[]> finished(ChatRun.Step.Finished f, RunDriver.Started started) {
            List<byte[]> out = new ArrayList<>();
            out.add(chunks.text("", f.finishReason()));
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
