package io.rkllm.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Every error response of the server, in the shape of the API its path belongs to: OpenAI's
 * {@code {"error":{message,type,param,code}}}, Ollama's {@code {"error":"..."}}, Anthropic's
 * {@code {"type":"error","error":{type,message}}}. Also for errors raised before any route ran (401, 404, 413).
 */
final class ErrorBodies {
    /** Marks a response whose error body is already written, so that the 404 fallback leaves it alone. */
    static final String WRITTEN = "rkllm.api-error";

    /** The wire APIs, each with its own error shape. */
    enum Api {
        OPENAI, OLLAMA, ANTHROPIC;

        static Api of(String path) {
            if (path.startsWith("/api/")) {
                return OLLAMA;
            }
            return path.equals("/v1/messages") || path.startsWith("/v1/messages/") ? ANTHROPIC : OPENAI;
        }
    }

    private final ObjectMapper mapper;

    ErrorBodies(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** Writes {@code e} as the response, unless the response is already committed (a stream reports its own). */
    void write(Context ctx, ApiException e) {
        if (ctx.res().isCommitted()) {
            return;
        }
        ctx.attribute(WRITTEN, e);
        e.retryAfterSeconds().ifPresent(s -> ctx.header("Retry-After", Integer.toString(s)));
        ctx.status(e.status()).contentType("application/json").result(bytes(body(Api.of(ctx.path()), e)));
    }

    ObjectNode body(Api api, ApiException e) {
        return switch (api) {
            case OPENAI -> openAi(e);
            case OLLAMA -> mapper.createObjectNode().put("error", e.getMessage());
            case ANTHROPIC -> anthropic(e);
        };
    }

    ObjectNode openAi(ApiException e) {
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

    ObjectNode anthropic(ApiException e) {
        ObjectNode root = mapper.createObjectNode();
        root.put("type", "error");
        ObjectNode error = root.putObject("error");
        error.put("type", anthropicType(e));
        error.put("message", e.getMessage());
        return root;
    }

    /** Anthropic's error types, by status. */
    static String anthropicType(ApiException e) {
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

    private byte[] bytes(ObjectNode node) {
        try {
            return mapper.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
