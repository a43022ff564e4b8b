package io.rkllm.server.http.openai;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.http.LogprobsJson;
import io.rkllm.server.http.TextOffsets;
import io.rkllm.server.pipeline.Answer;
import io.rkllm.server.http.TimingsJson;
import io.rkllm.server.pipeline.Usage;
import io.rkllm.server.pipeline.output.OutputEvent;

/** The JSON bodies of non-streaming OpenAI responses, and the usage/timings objects of both modes. */
final class ResponseJson {
    static final String FINGERPRINT = "rkllm-server";

    private ResponseJson() {
    }

    /** A non-streaming chat.completion. */
    static ObjectNode chatCompletion(ObjectMapper mapper, String id, long created, String model, Answer answer) {
        ObjectNode root = head(mapper, id, "chat.completion", created, model);
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        if (answer.content().isEmpty() && !answer.toolCalls().isEmpty()) {
            message.putNull("content");
        } else {
            message.put("content", answer.content());
        }
        if (!answer.reasoning().isEmpty()) {
            message.put("reasoning_content", answer.reasoning());
        }
        if (!answer.toolCalls().isEmpty()) {
            ArrayNode calls = message.putArray("tool_calls");
            for (OutputEvent.ToolCall t : answer.toolCalls()) {
                ObjectNode call = calls.addObject();
                call.put("id", t.id());
                call.put("type", "function");
                ObjectNode fn = call.putObject("function");
                fn.put("name", t.name());
                fn.put("arguments", t.argumentsJson());
            }
        }
        if (!answer.logprobs().isEmpty()) {
            choice.set("logprobs", LogprobsJson.chat(answer.logprobs()));
        }
        return tail(mapper, root, choice, answer);
    }

    /** A non-streaming legacy text_completion. */
    static ObjectNode textCompletion(ObjectMapper mapper, String id, long created, String model, Answer answer) {
        ObjectNode root = head(mapper, id, "text_completion", created, model);
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        choice.put("text", answer.content());
        if (!answer.logprobs().isEmpty()) {
            choice.set("logprobs", LogprobsJson.legacy(answer.logprobs(), new TextOffsets()));
        }
        return tail(mapper, root, choice, answer);
    }

    private static ObjectNode head(ObjectMapper mapper, String id, String object, long created, String model) {
        ObjectNode root = mapper.createObjectNode();
        root.put("id", id);
        root.put("object", object);
        root.put("created", created);
        root.put("model", model);
        root.put("system_fingerprint", FINGERPRINT);
        return root;
    }

    private static ObjectNode tail(ObjectMapper mapper, ObjectNode root, ObjectNode choice, Answer answer) {
        if (!choice.has("logprobs")) {
            choice.putNull("logprobs"); // none asked for, or none the model's engine has
        }
        choice.put("finish_reason", answer.finishReason());
        root.set("usage", usage(mapper, answer.usage()));
        root.set("timings", TimingsJson.of(mapper, answer.usage()));
        return root;
    }

    static ObjectNode usage(ObjectMapper mapper, Usage usage) {
        ObjectNode u = mapper.createObjectNode();
        u.put("prompt_tokens", usage.promptTokens());
        u.put("completion_tokens", usage.completionTokens());
        u.put("total_tokens", usage.totalTokens());
        u.putObject("prompt_tokens_details").put("cached_tokens", usage.cachedTokens());
        u.putObject("completion_tokens_details").put("reasoning_tokens", usage.reasoningTokens());
        return u;
    }
}
