package io.rkllm.server.http.anthropic;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.RunDriver;
import io.rkllm.server.http.Sse;
import io.rkllm.server.pipeline.Run;
import io.rkllm.server.pipeline.RunStep;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One streamed message as Anthropic's events. Content blocks open when their first piece arrives (a
 * ping follows the first one) and close when a block of another type starts or the answer ends; each tool
 * call is a block of its own: content_block_start with the tool_use block (empty input), its arguments as
 * input_json_delta deltas, content_block_stop.
 */
final class AnthropicEvents implements RunDriver.StreamFormat {
    private final AnthropicJson json;
    private final ObjectMapper mapper;
    private final ErrorShape errors;
    private final String id;
    private final String model;
    private final boolean thinking;
    private String openType;
    private int index = -1;
    /** How much of each streamed call's input was sent, by the call's index. */
    private final Map<Integer, Integer> inputSent = new HashMap<>();

    AnthropicEvents(AnthropicJson json, ErrorShape errors, String id, String model, boolean thinking) {
        this.json = json;
        this.mapper = json.mapper();
        this.errors = errors;
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
    public List<byte[]> output(OutputEvent e, List<TokenProbability> logprobs) {
        String type = AnthropicJson.type(e, thinking);
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
            delta.put("text", AnthropicJson.text(e));
        } else {
            delta.put("type", "thinking_delta");
            delta.put("thinking", AnthropicJson.text(e));
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
        out.add(inputDelta(json.input(call.argumentsJson()).toString()));
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
        start.set("content_block", json.toolUse(call, mapper.createObjectNode()));
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
        AnthropicJson.stopReason(root.putObject("delta"), f.finishReason(), run.matchedStop(),
                run.chat().answerBudgetCut());
        root.set("usage", json.usage(f.usage()));
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
        root.set("content_block", json.block(type));
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
