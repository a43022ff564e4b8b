package io.rkllm.server.http.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.FieldReader;
import io.rkllm.server.api.RequestLimits;
import io.rkllm.server.api.Tools;
import io.rkllm.server.pipeline.request.ToolChoice;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Responses API's {@code tools} and {@code tool_choice}: flat function tools and namespaces of them as the OpenAI
 * tools the runtime takes, hosted tools left out.
 */
record ResponsesTools(RequestLimits limits) {

    /**
     * Tools that hosted services run on OpenAI's side: nothing runs them here, and a client that offers one (Codex
     * offers web_search by default) loses nothing it could have here when it is left out.
     */
    private static final Set<String> HOSTED_TOOLS = Set.of("web_search", "web_search_preview",
            "web_search_preview_2025_03_11", "web_search_2025_08_26", "file_search", "code_interpreter",
            "image_generation", "computer_use_preview", "computer_use", "mcp", "tool_search");

    /**
     * The Responses' flat function tools ({@code type, name, description, parameters, strict}) and the functions of
     * {@code namespace} tools (a group of client-run functions, as Codex sends its sub-agent tools: each offered by
     * its own name, its namespace remembered in {@code namespaces} for the calls) as the OpenAI tools JSON the
     * runtime takes; {@code echo} gets them as they were given. Hosted tools are left out (named in
     * {@code ignored}); any other type is refused.
     */
    Optional<String> tools(FieldReader f, ArrayNode echo, Map<String, String> namespaces,
                                   List<String> ignored) {
        Optional<ArrayNode> tools = f.array("tools");
        if (tools.isEmpty() || tools.get().isEmpty()) {
            return Optional.empty();
        }
        ArrayNode openAi = JsonNodeFactory.instance.arrayNode();
        Set<String> topLevel = new HashSet<>();
        for (int i = 0; i < tools.get().size(); i++) {
            JsonNode tool = tools.get().get(i);
            String where = "tools[" + i + "]";
            String type = tool.path("type").asText("");
            if (HOSTED_TOOLS.contains(type)) {
                ignored.add(type);
            } else if (type.equals("namespace")) {
                String namespace = name(tool, where);
                JsonNode inner = tool.path("tools");
                if (!inner.isArray() || inner.isEmpty()) {
                    throw ApiException.invalid(where + ".tools", "a namespace tool needs 'tools': its functions");
                }
                for (int j = 0; j < inner.size(); j++) {
                    String innerWhere = where + ".tools[" + j + "]";
                    String innerType = inner.get(j).path("type").asText("");
                    if (!innerType.equals("function")) {
                        throw ApiException.invalid(innerWhere + ".type", "Invalid value: '" + innerType
                                + "'. Supported values inside a namespace here are: 'function'.");
                    }
                    String name = function(inner.get(j), innerWhere, openAi);
                    if (namespaces.put(name, namespace) != null) {
                        throw ApiException.invalid(innerWhere + ".name", "the function '" + name + "' is offered"
                                + " twice: a call of it could not say which one it is");
                    }
                }
            } else if (type.equals("function")) {
                String name = function(tool, where, openAi);
                if (!topLevel.add(name)) {
                    throw ApiException.invalid(where + ".name", "the function '" + name + "' is offered twice");
                }
            } else {
                throw ApiException.invalid(where + ".type", "Invalid value: '" + type + "'. Supported values are:"
                        + " 'function' and 'namespace' (hosted tools such as 'web_search' are left out: nothing runs"
                        + " them on this server).");
            }
            echo.add(tool);
        }
        if (openAi.size() > limits.maxTools()) {
            throw ApiException.invalid("tools", "at most " + limits.maxTools() + " tools are allowed");
        }
        for (String name : topLevel) {
            if (namespaces.containsKey(name)) {
                throw ApiException.invalid("tools", "the function '" + name + "' is offered at the top level and in"
                        + " the namespace '" + namespaces.get(name) + "': a call of it could not say which one it is");
            }
        }
        return openAi.isEmpty() ? Optional.empty() : Optional.of(openAi.toString());
    }

    private static String name(JsonNode tool, String where) {
        if (!tool.path("name").isTextual() || tool.path("name").asText().isBlank()) {
            throw ApiException.invalid(where + ".name", where + " needs a 'name'");
        }
        return tool.path("name").asText();
    }

    /** One function tool as the runtime's OpenAI tool; its name. */
    private static String function(JsonNode tool, String where, ArrayNode openAi) {
        String name = name(tool, where);
        ObjectNode function = openAi.addObject().put("type", "function").putObject("function");
        function.put("name", name);
        if (tool.path("description").isTextual()) {
            function.put("description", tool.path("description").asText());
        }
        if (tool.path("parameters").isObject()) {
            function.set("parameters", tool.path("parameters"));
        }
        return name;
    }

    /** {@code tool_choice}: none (empty: the tools are not offered), auto, required, or one function. */
    static Optional<ToolChoice> toolChoice(FieldReader f, Optional<String> tools) {
        return Tools.choice(f, tools, "{\"type\": \"function\", \"name\": ...} (hosted tools and allowed_tools are"
                + " not supported)");
    }
}
