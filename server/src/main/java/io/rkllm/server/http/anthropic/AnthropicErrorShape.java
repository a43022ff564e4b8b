package io.rkllm.server.http.anthropic;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.http.ErrorShape;

/** Anthropic's {@code {"type": "error", "error": {type, message}}}, its error types chosen by status. */
final class AnthropicErrorShape implements ErrorShape {
    private final ObjectMapper mapper;

    AnthropicErrorShape(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public ObjectNode body(ApiException e) {
        ObjectNode root = mapper.createObjectNode();
        root.put("type", "error");
        ObjectNode error = root.putObject("error");
        error.put("type", type(e));
        error.put("message", message(e));
        return root;
    }

    /**
     * The message, in Anthropic's own words where clients read them: a prompt over the context is "prompt is too
     * long: N tokens > M maximum", which agents (Claude Code) recognise to compact their conversation.
     */
    static String message(ApiException e) {
        if (e.code().filter("context_length_exceeded"::equals).isPresent()
                && e.extra().get("n_prompt_tokens") instanceof Integer n && e.extra().get("n_ctx") instanceof Integer ctx) {
            return "prompt is too long: " + n + " tokens > " + ctx + " maximum. " + e.getMessage();
        }
        return e.getMessage();
    }

    /** Anthropic's error types, by status. */
    static String type(ApiException e) {
        return switch (e.status()) {
            case 400, 405, 422 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 503, 529 -> "overloaded_error";
            case 504 -> "timeout_error";
            default -> "api_error";
        };
    }
}
