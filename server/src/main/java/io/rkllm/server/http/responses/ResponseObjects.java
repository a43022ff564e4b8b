package io.rkllm.server.http.responses;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.http.LogprobsJson;
import io.rkllm.server.pipeline.Answer;
import io.rkllm.server.pipeline.Usage;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The JSON of the Responses API: the response object and its output items (reasoning, message, function call), the
 * same for a whole response and for the items and snapshots of a stream.
 */
final class ResponseObjects {
    private final ObjectMapper mapper;

    ResponseObjects(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** A new id with the API's prefix for its kind: resp, msg, rs, fc. */
    static String id(String prefix) {
        return prefix + "_" + UUID.randomUUID().toString().replace("-", "");
    }

    /**
     * The response object.
     *
     * @param echo the request's settings, as {@code ResponsesRequestParser} collected them
     * @param status in_progress, completed, incomplete or failed
     * @param usage null while in progress
     */
    ObjectNode response(String id, long createdAt, String model, ObjectNode echo, String status, ArrayNode output,
                        Usage usage, Optional<ApiException> error) {
        ObjectNode root = mapper.createObjectNode();
        root.put("id", id);
        root.put("object", "response");
        root.put("created_at", createdAt);
        root.put("status", status);
        root.put("background", false);
        if (error.isPresent()) {
            ObjectNode e = root.putObject("error");
            e.put("code", error.get().code().orElse("server_error"));
            e.put("message", error.get().getMessage());
        } else {
            root.putNull("error");
        }
        if (status.equals("incomplete")) {
            root.putObject("incomplete_details").put("reason", "max_output_tokens");
        } else {
            root.putNull("incomplete_details");
        }
        root.set("instructions", echo.get("instructions"));
        root.set("max_output_tokens", echo.get("max_output_tokens"));
        root.put("model", model);
        root.set("output", output);
        root.set("parallel_tool_calls", echo.get("parallel_tool_calls"));
        root.set("previous_response_id", echo.get("previous_response_id"));
        root.set("reasoning", echo.get("reasoning"));
        root.set("store", echo.get("store"));
        root.set("temperature", echo.get("temperature"));
        root.set("text", echo.get("text"));
        root.set("tool_choice", echo.get("tool_choice"));
        root.set("tools", echo.get("tools"));
        root.set("top_p", echo.get("top_p"));
        root.set("truncation", echo.get("truncation"));
        if (usage == null) {
            root.putNull("usage");
        } else {
            root.set("usage", usage(usage));
        }
        root.set("user", echo.get("user"));
        root.set("metadata", echo.get("metadata"));
        return root;
    }

    /** A finished answer's output items: reasoning, then the message (unless the answer is only calls), then calls. */
    ArrayNode output(Answer answer, boolean reasoningSummary, Map<String, String> namespaces) {
        String status = status(answer.finishReason());
        ArrayNode output = mapper.createArrayNode();
        if (!answer.reasoning().isEmpty()) {
            output.add(reasoning(id("rs"), answer.reasoning(), reasoningSummary, "completed"));
        }
        if (!answer.content().isEmpty() || answer.toolCalls().isEmpty()) {
            output.add(message(id("msg"), answer.content(), status, answer.logprobs()));
        }
        for (OutputEvent.ToolCall call : answer.toolCalls()) {
            output.add(functionCall(call, "completed", namespaces));
        }
        return output;
    }

    /** The response's status for a finish reason: incomplete when the token limit cut the answer. */
    static String status(String finishReason) {
        return finishReason.equals("length") ? "incomplete" : "completed";
    }

    /**
     * A reasoning item. The model's reasoning is raw, so it goes in {@code content} as reasoning_text; a client that
     * asked for a summary gets it in {@code summary} instead (there is no summariser: it is the whole reasoning).
     */
    ObjectNode reasoning(String id, String text, boolean asSummary, String status) {
        ObjectNode item = mapper.createObjectNode();
        item.put("id", id);
        item.put("type", "reasoning");
        ArrayNode summary = item.putArray("summary");
        ArrayNode content = item.putArray("content");
        if (!text.isEmpty()) {
            (asSummary ? summary : content).add(reasoningPart(text, asSummary));
        }
        item.put("status", status);
        return item;
    }

    ObjectNode reasoningPart(String text, boolean asSummary) {
        return mapper.createObjectNode().put("type", asSummary ? "summary_text" : "reasoning_text").put("text", text);
    }

    ObjectNode message(String id, String text, String status) {
        return message(id, text, status, List.of());
    }

    /** A message item; {@code logprobs}, its tokens' log probabilities when they were asked for, in its text part. */
    ObjectNode message(String id, String text, String status, List<TokenProbability> logprobs) {
        ObjectNode item = mapper.createObjectNode();
        item.put("id", id);
        item.put("type", "message");
        item.put("status", status);
        ArrayNode content = item.putArray("content");
        if (!status.equals("in_progress")) {
            content.add(outputText(text, logprobs));
        }
        item.put("role", "assistant");
        return item;
    }

    ObjectNode outputText(String text) {
        return outputText(text, List.of());
    }

    ObjectNode outputText(String text, List<TokenProbability> logprobs) {
        ObjectNode part = mapper.createObjectNode();
        part.put("type", "output_text");
        part.putArray("annotations");
        part.set("logprobs", LogprobsJson.entries(logprobs, false));
        part.put("text", text);
        return part;
    }

    /**
     * A function call item; its id is the call's with {@code fc_}, its call_id the call's own, and the namespace of a
     * function offered inside a {@code namespace} tool ({@code namespaces}, by function name).
     */
    ObjectNode functionCall(OutputEvent.ToolCall call, String status, Map<String, String> namespaces) {
        ObjectNode item = mapper.createObjectNode();
        item.put("id", functionCallId(call));
        item.put("type", "function_call");
        item.put("status", status);
        item.put("arguments", status.equals("in_progress") ? "" : call.argumentsJson());
        item.put("call_id", call.id());
        item.put("name", call.name());
        String namespace = namespaces.get(call.name());
        if (namespace != null) {
            item.put("namespace", namespace);
        }
        return item;
    }

    static String functionCallId(OutputEvent.ToolCall call) {
        return functionCallId(call.id());
    }

    static String functionCallId(String callId) {
        return "fc_" + (callId.startsWith("call_") ? callId.substring("call_".length()) : callId);
    }

    /** input_tokens is the whole prompt, cached_tokens the part the KV cache already held. */
    ObjectNode usage(Usage usage) {
        ObjectNode u = mapper.createObjectNode();
        u.put("input_tokens", usage.promptTokens());
        u.putObject("input_tokens_details").put("cached_tokens", usage.cachedTokens());
        u.put("output_tokens", usage.completionTokens());
        u.putObject("output_tokens_details").put("reasoning_tokens", usage.reasoningTokens());
        u.put("total_tokens", usage.totalTokens());
        return u;
    }
}
