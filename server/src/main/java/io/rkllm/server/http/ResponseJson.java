package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.pipeline.Usage;
import io.rkllm.server.pipeline.output.OutputEvent;
import java.util.List;
import java.util.Map;

/** The JSON bodies of non-streaming responses and errors, and the usage/timings objects of both modes. */
final class ResponseJson {
    static final String FINGERPRINT = "rkllm-server";

    private ResponseJson() {
    }

    static ObjectNode error(ObjectMapper mapper, ApiException e) {
        ObjectNode root = mapper.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("message", e.getMessage());
        error.put("type", e.type());
        if (e.param().isPresent()) {
            error.put("param", e.param().get());
        } else {
            error.putNull("param");
        }
        if (e.code().isPresent()) {
            error.put("code", e.code().get());
        } else {
            error.putNull("code");
        }
        for (Map.Entry<String, Object> x : e.extra().entrySet()) {
            error.putPOJO(x.getKey(), x.getValue());
        }
        return root;
    }

    /** The non-streaming answer assembled from every output event. */
    static ObjectNode completion(ObjectMapper mapper, String id, long created, String model, boolean legacy,
                                 List<OutputEvent> events, String finishReason, Usage usage) {
        StringBuilder content = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        ArrayNode calls = mapper.createArrayNode();
        for (OutputEvent event : events) {
            switch (event) {
                case OutputEvent.Content c -> content.append(c.text());
                case OutputEvent.Reasoning r -> reasoning.append(r.text());
                case OutputEvent.ToolCall t -> {
                    ObjectNode call = calls.addObject();
                    call.put("id", t.id());
                    call.put("type", "function");
                    ObjectNode fn = call.putObject("function");
                    fn.put("name", t.name());
                    fn.put("arguments", t.argumentsJson());
                }
            }
        }
        ObjectNode root = mapper.createObjectNode();
        root.put("id", id);
        root.put("object", legacy ? "text_completion" : "chat.completion");
        root.put("created", created);
        root.put("model", model);
        root.put("system_fingerprint", FINGERPRINT);
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        if (legacy) {
            choice.put("text", content.toString());
        } else {
            ObjectNode message = choice.putObject("message");
            message.put("role", "assistant");
            if (content.isEmpty() && !calls.isEmpty()) {
                message.putNull("content");
            } else {
                message.put("content", content.toString());
            }
            if (!reasoning.isEmpty()) {
                message.put("reasoning_content", reasoning.toString());
            }
            if (!calls.isEmpty()) {
                message.set("tool_calls", calls);
            }
        }
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason);
        root.set("usage", usage(mapper, usage));
        root.set("timings", timings(mapper, usage));
        return root;
    }

    static ObjectNode usage(ObjectMapper mapper, Usage usage) {
        ObjectNode u = mapper.createObjectNode();
        u.put("prompt_tokens", usage.promptTokens());
        u.put("completion_tokens", usage.completionTokens());
        u.put("total_tokens", usage.totalTokens());
        u.putObject("prompt_tokens_details").put("cached_tokens", usage.cachedTokens());
        return u;
    }

    /** llama-server's timings: prompt_n is what this run prefilled, cache_n what it reused. */
    static ObjectNode timings(ObjectMapper mapper, Usage usage) {
        ObjectNode t = mapper.createObjectNode();
        t.put("prompt_n", usage.prefilledTokens());
        t.put("prompt_ms", round(usage.prefillMs()));
        t.put("prompt_per_second", perSecond(usage.prefilledTokens(), usage.prefillMs()));
        t.put("predicted_n", usage.completionTokens());
        t.put("predicted_ms", round(usage.generateMs()));
        t.put("predicted_per_second", perSecond(usage.completionTokens(), usage.generateMs()));
        t.put("cache_n", usage.cachedTokens());
        return t;
    }

    private static double round(double ms) {
        return Math.round(ms * 1000.0) / 1000.0;
    }

    private static double perSecond(int tokens, double ms) {
        return ms <= 0 ? 0 : Math.round(tokens / (ms / 1000.0) * 100.0) / 100.0;
    }
}
