package io.rkllm.server.http.ollama;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.http.ErrorShape;

/** Ollama's {@code {"error": "..."}}. */
final class OllamaErrorShape implements ErrorShape {
    private final ObjectMapper mapper;

    OllamaErrorShape(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public ObjectNode body(ApiException e) {
        return mapper.createObjectNode().put("error", e.getMessage());
    }
}
