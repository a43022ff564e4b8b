package io.rkllm.server.pipeline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.rkllm.server.pipeline.request.ChatRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The tools of a request in one order, by name: the runtime is given the same tools text whatever order a client
 * lists them in, so that a client that reorders its tools between the requests of one conversation (agents whose MCP
 * servers reconnect, or that build the list from a map) does not throw the conversation's KV cache away.
 */
final class ToolOrder {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolOrder() {
    }

    static ChatRequest canonical(ChatRequest request) {
        if (request.toolsJson().isEmpty()) {
            return request;
        }
        return request.withTools(Optional.of(canonical(request.toolsJson().get())));
    }

    static String canonical(String toolsJson) {
        JsonNode tools;
        try {
            tools = JSON.readTree(toolsJson);
        } catch (JsonProcessingException e) {
            return toolsJson;
        }
        if (!(tools instanceof ArrayNode array)) {
            return toolsJson;
        }
        List<JsonNode> sorted = new ArrayList<>();
        array.forEach(sorted::add);
        sorted.sort(Comparator.comparing(ToolOrder::name));
        ArrayNode out = JSON.createArrayNode();
        sorted.forEach(out::add);
        return out.toString();
    }

    private static String name(JsonNode tool) {
        JsonNode function = tool.path("function");
        return (function.isObject() ? function : tool).path("name").asText("");
    }
}
