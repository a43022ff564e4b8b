package io.rkllm.server.http.openai;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.rkllm.server.http.ConversationHeader;
import io.rkllm.server.pipeline.ChatPipeline;
import java.util.Map;

/**
 * llama-server's {@code POST /apply-template}: a chat completions request in, {@code {"prompt": "..."}} out, the text
 * the model would read for it (its own chat template applied, the tools and the thinking switch with it), nothing
 * generated.
 */
final class ApplyTemplate {
    private final ChatPipeline pipeline;
    private final ChatRequestParser parser;
    private final ObjectMapper mapper;

    ApplyTemplate(ChatPipeline pipeline, ChatRequestParser parser, ObjectMapper mapper) {
        this.pipeline = pipeline;
        this.parser = parser;
        this.mapper = mapper;
    }

    void handle(Context ctx) throws Exception {
        String prompt = pipeline.promptText(parser.parseChat(ctx.bodyAsBytes(), ConversationHeader.of(ctx)));
        ctx.status(200).contentType("application/json").result(mapper.writeValueAsBytes(Map.of("prompt", prompt)));
    }
}
