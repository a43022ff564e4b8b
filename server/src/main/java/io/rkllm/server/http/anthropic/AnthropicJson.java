package io.rkllm.server.http.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.Answer;
import io.rkllm.server.pipeline.Usage;
import io.rkllm.server.pipeline.output.OutputEvent;
import java.io.IOException;
import java.util.Optional;

/**
 * Anthropic's shapes of an answer, whole or streamed: the message, its content blocks (thinking, text, tool_use),
 * stop_reason and stop_sequence, usage.
 */
record AnthropicJson(ObjectMapper mapper) {

    ObjectNode message(String id, String model, Answer answer, boolean thinking, boolean contextFull) {
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
    ArrayNode blocks(Answer answer, boolean thinking) {
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

    ObjectNode block(String type) {
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
    ObjectNode toolUse(OutputEvent.ToolCall call, JsonNode input) {
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
    ObjectNode input(String argumentsJson) {
        try {
            JsonNode node = mapper.readTree(argumentsJson);
            return node != null && node.isObject() ? (ObjectNode) node : mapper.createObjectNode();
        } catch (IOException e) {
            return mapper.createObjectNode();
        }
    }

    /** The block type an event belongs to, or null when it is not shown (reasoning not asked for). */
    static String type(OutputEvent event, boolean thinking) {
        return switch (event) {
            case OutputEvent.Content c -> "text";
            case OutputEvent.Reasoning r -> thinking ? "thinking" : null;
            case OutputEvent.ToolCall t -> "tool_use";
            case OutputEvent.CallDelta d -> "tool_use";
        };
    }

    static String text(OutputEvent event) {
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
    static void stopReason(ObjectNode node, String finishReason, Optional<String> stop, boolean contextFull) {
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
    ObjectNode usage(Usage usage) {
        ObjectNode u = mapper.createObjectNode();
        u.put("input_tokens", usage.promptTokens() - usage.cachedTokens());
        u.put("output_tokens", usage.completionTokens());
        u.put("cache_read_input_tokens", usage.cachedTokens());
        u.put("cache_creation_input_tokens", 0);
        return u;
    }
}
