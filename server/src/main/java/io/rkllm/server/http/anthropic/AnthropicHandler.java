package io.rkllm.server.http.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.http.ConversationHeader;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.RunDriver;
import io.rkllm.server.http.Sse;
import io.rkllm.server.pipeline.Answer;
import io.rkllm.server.pipeline.ChatPipeline;
import io.rkllm.server.pipeline.Run;
import io.rkllm.server.pipeline.RunStep;
import io.rkllm.server.pipeline.Usage;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.request.ChatRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    AnthropicHandler(RunDriver driver, AnthropicRequestParser parser, ChatPipeline pipeline, ObjectMapper mapper,
                     ErrorShape errors) {
        this.driver = driver;
        this.parser = parser;
        this.pipeline = pipeline;
        this.mapper = mapper;
        this.errors = errors;
    }

    void messages(Context c) throws Exception {
        ChatRequest request = parser.parse(c.bodyAsBytes(),
                ConversationHeader.of(c));
        String id = "msg_" + UUID.randomUUID().toString().replace("-", "");
        driver.run(c, request, run -> {
            String model = request.model().isBlank() ? run.modelId() : request.model();
            boolean thinking = run.chat().thinking();
            if (request.stream()) {
                driver.stream(c, run, new Events(id, model, thinking));
            } else {
                boolean contextFull = run.chat().answerBudgetCut();
                driver.collect(c, run, answer -> c.status(200).contentType("application/json").result(
                        mapper.writeValueAsBytes(message(id, model, answer, thinking, contextFull))));
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

    private ObjectNode message(String id, String model, Answer answer, boolean thinking, boolean contextFull) {
        ObjectNode root = mapper.createObjectNode();
        root.put("id", id);
        root.put("type", "message");
        root.put("role", "assistant");
        root.put("model", model);
        root.set("content", blocks(answer, thinking));
        stopReason(root, answer.finishReason(), answer.matchedStop(), contextFull);
        root.set("usage", usage(answer.usage()));
        return root;
    }

    /**
     * The answer's content blocks: its reasoning (when asked for), its text, its tool calls; at least one (an
     * empty text block for an empty answer).
     */
    private ArrayNode blocks(Answer answer, boolean thinking) {
        ArrayNode blocks = mapper.createArrayNode();
        if (thinking && !answer.reasoning().isEmpty()) {
            blocks.add(block("thinking").put("thinking", answer.reasoning()));
        }
        if (!answer.content().isEmpty() || (blocks.isEmpty() && answer.toolCalls().isEmpty())) {
            blocks.add(block("text").put("text", answer.content()));
        }
        for (OutputEvent.ToolCall call : answer.toolCalls()) {
            blocks.add(toolUse(call, input(call.argumentsJson())));
        }
        return blocks;
    }

    private ObjectNode block(String type) {
        ObjectNode block = mapper.createObjectNode();
        block.put("type", type);
        if (type.equals("text")) {
            block.put("text", "");
        } else {
            block.put("thinking", "");
            block.put("signature", "");
        }
        return block;
    }

    /** A tool_use block: {@code input} is the call's arguments (an empty object while they stream). */
    private ObjectNode toolUse(OutputEvent.ToolCall call, JsonNode input) {
        ObjectNode block = mapper.createObjectNode();
        block.put("type", "tool_use");
        block.put("id", toolUseId(call.id()));
        block.put("name", call.name());
        block.set("input", input);
        return block;
    }

    /**
     * Anthropic's ids look like {@code toolu_...}; the random part is the call's own. An id a model wrote (Kimi's
     * {@code functions.get_weather:0}) keeps only what Anthropic's ids may have ({@code [A-Za-z0-9_-]}).
     */
    static String toolUseId(String callId) {
        return callId.startsWith("call_") ? "toolu_" + callId.substring("call_".length())
                : callId.replaceAll("[^A-Za-z0-9_-]", "_");
    }

    /** The call's arguments as the object Anthropic's {@code input} is; anything else the model wrote is {}. */
    private ObjectNode input(String argumentsJson) {
        try {
            JsonNode node = mapper.readTree(argumentsJson);
            return node != null && node.isObject() ? (ObjectNode) node : mapper.createObjectNode();
        } catch (IOException e) {
            return mapper.createObjectNode();
        }
    }

    /** The block type an event belongs to, or null when it is not shown (reasoning not asked for). */
    private static String type(OutputEvent event, boolean thinking) {
        return switch (event) {
            case OutputEvent.Content c -> "text";
            case OutputEvent.Reasoning r -> thinking ? "thinking" : null;
            case OutputEvent.ToolCall t -> "tool_use";
            case OutputEvent.CallDelta d -> "tool_use";
        };
    }

    private static String text(OutputEvent event) {
        return switch (event) {
            case OutputEvent.Content c -> c.text();
            case OutputEvent.Reasoning r -> r.text();
            case OutputEvent.ToolCall t -> "";
            case OutputEvent.CallDelta d -> "";
        };
    }

    /**
     * stop_reason and stop_sequence: end_turn, max_tokens, tool_use, or stop_sequence with the string that
     * matched; model_context_window_exceeded when the answer stopped because the context was full before the
     * client's max_tokens ({@code contextFull}: the limit was cut to what the context held after the prompt).
     */
    private static void stopReason(ObjectNode node, String finishReason, Optional<String> stop, boolean contextFull) {
        if (finishReason.equals("tool_calls")) {
            node.put("stop_reason", "tool_use");
            node.putNull("stop_sequence");
        } else if (finishReason.equals("length")) {
            node.put("stop_reason", contextFull ? "model_context_window_exceeded" : "max_tokens");
            node.putNull("stop_sequence");
        } else if (stop.isPresent()) {
            node.put("stop_reason", "stop_sequence");
            node.put("stop_sequence", stop.get());
        } else {
            node.put("stop_reason", "end_turn");
            node.putNull("stop_sequence");
        }
    }

    /**
     * input_tokens is what was prefilled now; what the KV cache already held is cache_read_input_tokens.
     * output_tokens includes the thinking tokens: Anthropic's usage has no field of its own for them.
     */
    private ObjectNode usage(Usage usage) {
        ObjectNode u = mapper.createObjectNode();
        u.put("input_tokens", usage.promptTokens() - usage.cachedTokens());
        u.put("output_tokens", usage.completionTokens());
        u.put("cache_read_input_tokens", usage.cachedTokens());
        u.put("cache_creation_input_tokens", 0);
        return u;
    }

    /**
     * One streamed message as Anthropic's events. Content blocks open when their first piece arrives (a
     * ping follows the first one) and close when a block of another type starts or the answer ends; each tool
     * call is a block of its own: content_block_start with the tool_use block (empty input), its arguments as
     * input_json_delta deltas, content_block_stop.
     */
    private final class Events implements RunDriver.StreamFormat {
        private final String id;
        private final String model;
        private final boolean thinking;
        private String openType;
        private int index = -1;
        /** How much of each streamed call's input was sent, by the call's index. */
        private final Map<Integer, Integer> inputSent = new HashMap<>();

        Events(String id, String model, boolean thinking) {
            this.id = id;
            this.model = model;
            this.thinking = thinking;
        }

        @Override
        public String contentType() {
            return "text/event-stream";
        }

        @Override
        public List<byte[]> opening() {
            ObjectNode message = mapper.createObjectNode();
            message.put("id", id);
            message.put("type", "message");
            message.put("role", "assistant");
            message.putArray("content");
            message.put("model", model);
            message.putNull("stop_reason");
            message.putNull("stop_sequence");
            ObjectNode usage = message.putObject("usage");
            usage.put("input_tokens", 0);
            usage.put("output_tokens", 0);
            ObjectNode root = event("message_start");
            root.set("message", message);
            return List.of(sse("message_start", root));
        }

        @Override
        public byte[] keepAlive() {
            return sse("ping", event("ping"));
        }

        @Override
        public List<byte[]> output(OutputEvent e) {
            String type = type(e, thinking);
            if (type == null) {
                return List.of();
            }
            if (e instanceof OutputEvent.CallDelta d) {
                return toolUsePiece(d);
            }
            if (e instanceof OutputEvent.ToolCall call) {
                return inputSent.containsKey(call.index()) ? toolUseEnd(call) : toolUseBlock(call);
            }
            List<byte[]> out = new ArrayList<>(open(type));
            ObjectNode root = event("content_block_delta");
            root.put("index", index);
            ObjectNode delta = root.putObject("delta");
            if (type.equals("text")) {
                delta.put("type", "text_delta");
                delta.put("text", text(e));
            } else {
                delta.put("type", "thinking_delta");
                delta.put("thinking", text(e));
            }
            out.add(sse("content_block_delta", root));
            return out;
        }

        /**
         * A piece of a call under way: its tool_use block starts with the first (closing the open one), each piece
         * of its arguments is an input_json_delta.
         */
        private List<byte[]> toolUsePiece(OutputEvent.CallDelta d) {
            List<byte[]> out = new ArrayList<>();
            String type = "tool_use:" + d.index();
            if (!type.equals(openType)) {
                startToolUse(new OutputEvent.ToolCall(d.index(), d.id(), d.name(), "{}"), type, out);
            }
            inputSent.merge(d.index(), d.arguments().length(), Integer::sum);
            if (!d.arguments().isEmpty()) {
                out.add(inputDelta(d.arguments()));
            }
            return out;
        }

        /** A streamed call complete: the rest of its arguments, and its block's stop (if another has not closed it). */
        private List<byte[]> toolUseEnd(OutputEvent.ToolCall call) {
            int sent = inputSent.remove(call.index());
            if (!("tool_use:" + call.index()).equals(openType)) {
                return List.of(); // closed when the next call started, its arguments whole by then
            }
            List<byte[]> out = new ArrayList<>();
            String rest = call.argumentsJson().substring(sent);
            if (!rest.isEmpty()) {
                out.add(inputDelta(rest));
            }
            out.add(close());
            openType = null;
            return out;
        }

        private byte[] inputDelta(String partialJson) {
            ObjectNode root = event("content_block_delta");
            root.put("index", index);
            ObjectNode delta = root.putObject("delta");
            delta.put("type", "input_json_delta");
            delta.put("partial_json", partialJson);
            return sse("content_block_delta", root);
        }

        /** A whole tool_use block: start, the arguments as one input_json_delta, stop. */
        private List<byte[]> toolUseBlock(OutputEvent.ToolCall call) {
            List<byte[]> out = new ArrayList<>();
            startToolUse(call, null, out);
            out.add(inputDelta(input(call.argumentsJson()).toString()));
            out.add(close());
            return out;
        }

        /**
         * Closes the open block and starts a tool_use block for {@code call} (its input empty), a ping after it when
         * it is the first block; {@code openAs} is what the block is open as afterwards (null: closed at once).
         */
        private void startToolUse(OutputEvent.ToolCall call, String openAs, List<byte[]> out) {
            if (openType != null) {
                out.add(close());
            }
            index++;
            openType = openAs;
            ObjectNode start = event("content_block_start");
            start.put("index", index);
            start.set("content_block", toolUse(call, mapper.createObjectNode()));
            out.add(sse("content_block_start", start));
            if (index == 0) {
                out.add(keepAlive());
            }
        }

        @Override
        public List<byte[]> finished(RunStep.Finished f, Run run) {
            List<byte[]> out = new ArrayList<>(index < 0 ? open("text") : List.of());
            if (openType != null) {
                out.add(close());
            }
            ObjectNode root = event("message_delta");
            stopReason(root.putObject("delta"), f.finishReason(), run.matchedStop(),
                    run.chat().answerBudgetCut());
            root.set("usage", usage(f.usage()));
            out.add(sse("message_delta", root));
            out.add(sse("message_stop", event("message_stop")));
            return out;
        }

        @Override
        public byte[] failed(ApiException error) {
            return sse("error", errors.body(error));
        }

        /** Closes the open block of another type and starts one of {@code type}; nothing if it is open. */
        private List<byte[]> open(String type) {
            if (type.equals(openType)) {
                return List.of();
            }
            List<byte[]> out = new ArrayList<>();
            if (openType != null) {
                out.add(close());
            }
            index++;
            openType = type;
            ObjectNode root = event("content_block_start");
            root.put("index", index);
            root.set("content_block", block(type));
            out.add(sse("content_block_start", root));
            if (index == 0) {
                out.add(keepAlive());
            }
            return out;
        }

        private byte[] close() {
            ObjectNode root = event("content_block_stop");
            root.put("index", index);
            return sse("content_block_stop", root);
        }

        private ObjectNode event(String type) {
            return mapper.createObjectNode().put("type", type);
        }

        private byte[] sse(String name, ObjectNode data) {
            return Sse.event(mapper, name, data);
        }
    }
}
