package io.rkllm.server.http.anthropic;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.http.ConversationHeader;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.RunDriver;
import io.rkllm.server.pipeline.ChatPipeline;
import io.rkllm.server.pipeline.request.ChatRequest;
import java.util.UUID;

/**
 * Anthropic's Messages API: {@code POST /v1/messages} through the same pipeline, cache policy and queue as the
 * other routes, and {@code POST /v1/messages/count_tokens}. Streams Anthropic's named SSE events in Anthropic's
 * order (message_start, content_block_start, ping, content_block_delta..., content_block_stop, message_delta,
 * message_stop); reasoning becomes {@code thinking} blocks when the request enabled thinking, tool calls
 * {@code tool_use} blocks (streamed as {@code input_json_delta}) with {@code stop_reason: "tool_use"}. Errors are
 * {@code {"type":"error","error":{"type","message"}}}. {@code x-api-key} and {@code anthropic-version} are
 * accepted and not checked here.
 */
final class AnthropicHandler {
    private final RunDriver driver;
    private final AnthropicRequestParser parser;
    private final ChatPipeline pipeline;
    private final ObjectMapper mapper;
    private final ErrorShape errors;
    private final AnthropicJson json;

    AnthropicHandler(RunDriver driver, AnthropicRequestParser parser, ChatPipeline pipeline, ObjectMapper mapper,
                     ErrorShape errors) {
        this.driver = driver;
        this.parser = parser;
        this.pipeline = pipeline;
        this.mapper = mapper;
        this.errors = errors;
        this.json = new AnthropicJson(mapper);
    }

    void messages(Context c) throws Exception {
        ChatRequest request = parser.parse(c.bodyAsBytes(),
                ConversationHeader.of(c));
        String id = "msg_" + UUID.randomUUID().toString().replace("-", "");
        driver.run(c, request, run -> {
            String model = request.model().isBlank() ? run.modelId() : request.model();
            boolean thinking = run.chat().thinking();
            if (request.stream()) {
                driver.stream(c, run, new AnthropicEvents(json, errors, id, model, thinking));
            } else {
                boolean contextFull = run.chat().answerBudgetCut();
                driver.collect(c, run, answer -> c.status(200).contentType("application/json").result(
                        mapper.writeValueAsBytes(json.message(id, model, answer, thinking, contextFull))));
            }
        });
    }

    /** {@code {"input_tokens": N}}: the estimate of the whole prompt the model would see; nothing runs. */
    void countTokens(Context c) throws Exception {
        ChatRequest request = parser.parseCount(c.bodyAsBytes());
        ObjectNode root = mapper.createObjectNode();
        root.put("input_tokens", pipeline.promptTokens(request));
        c.status(200).contentType("application/json").result(mapper.writeValueAsBytes(root));
    }
}
