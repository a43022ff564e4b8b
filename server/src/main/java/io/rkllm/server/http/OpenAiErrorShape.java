package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;
import java.util.Map;

/**
 * OpenAI's {@code {"error": {message, type, param, code}}}: the chat and completion routes', the Responses API's,
 * and the server's own for every path no other API owns (health, metrics, unknown routes).
 */
public final class OpenAiErrorShape implements ErrorShape {
    private final ObjectMapper mapper;

    public OpenAiErrorShape(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public ObjectNode body(ApiException e) {
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
}
