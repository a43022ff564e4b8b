package io.rkllm.server.http.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.FieldReader;
import io.rkllm.server.api.ImageSources;
import io.rkllm.server.api.RequestLimits;
import io.rkllm.server.api.Schemas;
import io.rkllm.server.api.Tools;
import io.rkllm.server.pipeline.request.ChatImage;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.OutputFormat;
import io.rkllm.server.pipeline.request.Role;
import io.rkllm.server.pipeline.request.ToolCallRecord;
import io.rkllm.server.pipeline.request.Thinking;
import io.rkllm.server.pipeline.request.ToolChoice;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Turns an Anthropic Messages API body ({@code POST /v1/messages}, and {@code /v1/messages/count_tokens} without
 * {@code max_tokens}) into the pipeline's {@link ChatRequest}: {@code system} as a string or text blocks,
 * {@code messages} with string or block content, {@code max_tokens} (required), {@code stop_sequences},
 * {@code temperature}/{@code top_p}/{@code top_k}, {@code stream}, {@code output_config.format} (structured output),
 * {@code thinking} ({@code enabled} turns
 * thinking on; off when absent, as on Anthropic's API), and client tools: {@code tools} (their
 * {@code input_schema} becomes the parameters of the OpenAI tools JSON the runtime takes), {@code tool_choice},
 * {@code tool_use} blocks in assistant messages (tool calls) and {@code tool_result} blocks in user messages (tool
 * messages), and {@code image} blocks in user messages (pictures, for vision models). Documents and Anthropic's
 * server tools are refused with a 400: nothing runs them here. Thinking blocks sent back in the history are
 * dropped.
 */
public final class AnthropicRequestParser {
    private final CommonFields common;
    private final RequestLimits limits;

    public AnthropicRequestParser(CommonFields common, RequestLimits limits) {
        this.common = common;
        this.limits = limits;
    }

    /** A {@code /v1/messages} body. */
    public ChatRequest parse(byte[] body, Optional<String> chatIdHeader) {
        return parse(body, chatIdHeader, true);
    }

    /** A {@code /v1/messages/count_tokens} body: the same fields, without {@code max_tokens}. */
    public ChatRequest parseCount(byte[] body) {
        return parse(body, Optional.empty(), false);
    }

    private ChatRequest parse(byte[] body, Optional<String> chatIdHeader, boolean generates) {
        ObjectNode root = common.object(body);
        FieldReader f = new FieldReader(root);
        OptionalInt maxTokens = generates ? common.maxTokens(f) : OptionalInt.empty();
        if (generates && maxTokens.isEmpty()) {
            throw ApiException.invalid("max_tokens", "'max_tokens' is required");
        }
        UnavailableBetas.refuse(f);
        Optional<String> tools = tools(f);
        ChoiceAndParallel choice = toolChoice(f, tools);
        List<ChatMessage> messages = new ArrayList<>();
        Optional<JsonNode> system = f.raw("system");
        if (system.isPresent()) {
            String text = withoutBillingLines(text(system.get(), "system"));
            if (!text.isEmpty()) {
                messages.add(ChatMessage.of(Role.SYSTEM, text));
            }
        }
        ArrayNode array = f.array("messages").orElseThrow(() -> ApiException.invalid("messages",
                "'messages' is required: a non-empty array of messages"));
        if (array.isEmpty()) {
            throw ApiException.invalid("messages", "'messages' must not be empty");
        }
        if (array.size() > limits.maxMessages()) {
            throw ApiException.invalid("messages", "at most " + limits.maxMessages() + " messages are allowed");
        }
        ImageSources.Intake intake = common.images().intake();
        for (int i = 0; i < array.size(); i++) {
            messages.addAll(message(array.get(i), "messages[" + i + "]", intake));
        }
        return new ChatRequest(common.model(f), List.copyOf(messages),
                new ChatRequest.Delivery(generates && f.bool("stream").orElse(false), false),
                new ChatRequest.Output(maxTokens, common.sampling(f),
                        generates ? common.stop(f, "stop_sequences") : List.of(), outputFormat(f),
                        AnthropicThinking.of(f), OptionalInt.empty()), // Anthropic has no logprobs
                new ChatRequest.ToolUse(choice.choice().isEmpty() ? Optional.empty()
                        : Tools.only(tools, choice.choice().get()), choice.choice().orElse(ToolChoice.AUTO),
                        choice.parallel()),
                conversationKey(f, chatIdHeader));
    }

    /**
     * The system text without Claude Code's {@code x-anthropic-billing-header: cc_version=...; cch=...;} line: it is
     * for Anthropic's accounting, not for the model, and it changes from session to session (and, in some versions,
     * from request to request), which would make every conversation's system prompt new to the KV cache.
     */
    static String withoutBillingLines(String system) {
        if (!system.contains(BILLING_PREFIX)) {
            return system;
        }
        StringBuilder kept = new StringBuilder();
        for (String line : system.split("\n", -1)) {
            if (!line.startsWith(BILLING_PREFIX)) {
                kept.append(kept.isEmpty() ? "" : "\n").append(line);
            }
        }
        return kept.toString().strip();
    }

    private static final String BILLING_PREFIX = "x-anthropic-billing-header:";

    /**
     * Anthropic's client tools ({@code name}, {@code description}, {@code input_schema}) as the OpenAI tools JSON
     * the runtime's function calling takes. Server tools (web search, code execution, bash...) run on Anthropic's
     * side: refused.
     */
    private Optional<String> tools(FieldReader f) {
        Optional<ArrayNode> tools = f.array("tools");
        if (tools.isEmpty() || tools.get().isEmpty()) {
            return Optional.empty();
        }
        if (tools.get().size() > limits.maxTools()) {
            throw ApiException.invalid("tools", "at most " + limits.maxTools() + " tools are allowed");
        }
        ArrayNode openAi = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < tools.get().size(); i++) {
            JsonNode tool = tools.get().get(i);
            String where = "tools[" + i + "]";
            if (!tool.isObject() || !tool.path("name").isTextual() || tool.path("name").asText().isBlank()) {
                throw ApiException.invalid(where, where + " must be {\"name\": ..., \"input_schema\": {...}}");
            }
            String type = tool.path("type").asText("custom");
            if (!type.equals("custom")) {
                throw ApiException.invalid(where + ".type", "the server tool '" + type + "' is not available"
                        + " here: only client tools (name, description, input_schema) are supported");
            }
            if (!tool.path("input_schema").isObject()) {
                throw ApiException.invalid(where + ".input_schema", where + ".input_schema must be a JSON Schema"
                        + " object");
            }
            ObjectNode function = openAi.addObject().put("type", "function").putObject("function");
            function.put("name", tool.path("name").asText());
            if (tool.path("description").isTextual()) {
                function.put("description", tool.path("description").asText());
            }
            function.set("parameters", tool.path("input_schema"));
        }
        return Optional.of(openAi.toString());
    }

    /** The tool choice, empty for {@code none} (the tools are not offered), and whether calls may come several. */
    private record ChoiceAndParallel(Optional<ToolChoice> choice, boolean parallel) {
    }

    private static ChoiceAndParallel toolChoice(FieldReader f, Optional<String> tools) {
        Optional<JsonNode> node = f.raw("tool_choice");
        if (node.isEmpty()) {
            return new ChoiceAndParallel(Optional.of(ToolChoice.AUTO), true);
        }
        if (!node.get().isObject()) {
            throw ApiException.invalid("tool_choice", "'tool_choice' must be an object with a 'type'");
        }
        JsonNode c = node.get();
        boolean parallel = !c.path("disable_parallel_tool_use").asBoolean(false);
        String type = c.path("type").asText("");
        ToolChoice choice = switch (type) {
            case "auto" -> ToolChoice.AUTO;
            case "any" -> ToolChoice.REQUIRED;
            case "tool" -> {
                if (!c.path("name").isTextual()) {
                    throw ApiException.invalid("tool_choice.name", "tool_choice of type 'tool' needs a 'name'");
                }
                yield new ToolChoice.Function(c.path("name").asText());
            }
            case "none" -> null;
            default -> throw ApiException.invalid("tool_choice.type",
                    "'tool_choice.type' must be auto, any, tool or none");
        };
        if (choice == null) {
            return new ChoiceAndParallel(Optional.empty(), parallel);
        }
        if (!(choice instanceof ToolChoice.Auto) && tools.isEmpty()) {
            throw ApiException.invalid("tool_choice", "'tool_choice' " + type + " requires 'tools'");
        }
        if (choice instanceof ToolChoice.Function fn && !Tools.names(tools.orElseThrow()).contains(fn.name())) {
            throw ApiException.invalid("tool_choice.name", "tool_choice names the tool '" + fn.name()
                    + "', which is not among the tools " + Tools.names(tools.get()));
        }
        return new ChoiceAndParallel(Optional.of(choice), parallel);
    }

    /**
     * One Anthropic message as the pipeline's messages: an assistant message with its text and {@code tool_use}
     * blocks as one message with tool calls; a user message's {@code tool_result} blocks as tool messages, followed
     * by its text, if any, as a user message.
     */
    private List<ChatMessage> message(JsonNode node, String where, ImageSources.Intake intake) {
        if (!node.isObject()) {
            throw ApiException.invalid(where, where + " must be an object with 'role' and 'content'");
        }
        FieldReader m = new FieldReader((ObjectNode) node);
        String role = m.string("role").orElseThrow(() -> ApiException.invalid(where + ".role",
                where + ".role is required"));
        JsonNode content = m.raw("content").orElseThrow(() -> ApiException.invalid(where + ".content",
                where + ".content is required"));
        return switch (role) {
            case "user" -> userMessages(content, where + ".content", intake);
            case "assistant" -> List.of(assistantMessage(content, where + ".content"));
            // Claude Code's mid-conversation system messages (beta mid-conversation-system-2026-04-07): system text at
            // its place in the conversation, so that the system prompt, and the cache of everything before it, stay
            case "system" -> List.of(ChatMessage.of(Role.SYSTEM, text(content, where + ".content")));
            default -> throw ApiException.invalid(where + ".role", "messages: Unexpected role \"" + role
                    + "\". Allowed roles are \"user\", \"assistant\" and \"system\"");
        };
    }

    /** A user message; its {@code image} blocks (pictures, for vision models) go with its text. */
    private static List<ChatMessage> userMessages(JsonNode content, String where, ImageSources.Intake intake) {
        if (!content.isArray()) {
            return List.of(ChatMessage.of(Role.USER, text(content, where)));
        }
        List<ChatMessage> out = new ArrayList<>();
        ArrayNode textBlocks = JsonNodeFactory.instance.arrayNode();
        List<ChatImage> pictures = new ArrayList<>();
        for (int i = 0; i < content.size(); i++) {
            JsonNode block = content.get(i);
            switch (block.path("type").asText("")) {
                case "tool_result" -> out.add(toolResult(block, where));
                case "image" -> pictures.add(image(block, where + "[" + i + "]", intake));
                default -> textBlocks.add(block);
            }
        }
        if (!textBlocks.isEmpty() || !pictures.isEmpty() || out.isEmpty()) {
            out.add(ChatMessage.of(Role.USER, text(textBlocks, where)).withImages(pictures));
        }
        return out;
    }

    /** An image block: {@code source} base64 ({@code data}) or, when fetching is on, a URL. */
    private static ChatImage image(JsonNode block, String where, ImageSources.Intake intake) {
        JsonNode source = block.path("source");
        String type = source.path("type").asText("");
        return switch (type) {
            case "base64" -> {
                if (!source.path("data").isTextual()) {
                    throw ApiException.invalid(where + ".source.data", "a base64 image source needs 'data'");
                }
                yield intake.base64(source.path("data").asText(), where + ".source.data");
            }
            case "url" -> {
                if (!source.path("url").isTextual()) {
                    throw ApiException.invalid(where + ".source.url", "a url image source needs 'url'");
                }
                yield intake.url(source.path("url").asText(), where + ".source.url");
            }
            default -> throw ApiException.invalid(where + ".source", "an image block needs a source of type"
                    + " base64 (with media_type and data)");
        };
    }

    /** A {@code tool_result} block as a tool message; an error result says so to the model. */
    private static ChatMessage toolResult(JsonNode block, String where) {
        if (!block.path("tool_use_id").isTextual()) {
            throw ApiException.invalid(where, "a tool_result block needs a string 'tool_use_id'");
        }
        JsonNode content = block.path("content");
        String text = content.isMissingNode() || content.isNull() ? "" : text(content, where + " (tool_result)");
        if (block.path("is_error").asBoolean(false)) {
            text = "Error: " + text;
        }
        return new ChatMessage(Role.TOOL, text, List.of(), Optional.of(block.path("tool_use_id").asText()));
    }

    private static ChatMessage assistantMessage(JsonNode content, String where) {
        if (!content.isArray()) {
            return ChatMessage.of(Role.ASSISTANT, text(content, where));
        }
        List<ToolCallRecord> calls = new ArrayList<>();
        ArrayNode textBlocks = JsonNodeFactory.instance.arrayNode();
        StringBuilder thinking = new StringBuilder();
        for (JsonNode block : content) {
            if (block.path("type").asText("").equals("thinking") && block.path("thinking").isTextual()) {
                // the reasoning of the answer, which templates that write reasoning back get
                thinking.append(thinking.isEmpty() ? "" : "\n\n").append(block.path("thinking").asText());
                textBlocks.add(block);
            } else if (block.path("type").asText("").equals("tool_use")) {
                if (!block.path("name").isTextual()) {
                    throw ApiException.invalid(where, "a tool_use block needs a string 'name'");
                }
                JsonNode input = block.path("input");
                calls.add(new ToolCallRecord(block.path("id").asText(""), block.path("name").asText(),
                        input.isObject() ? input.toString() : "{}"));
            } else {
                textBlocks.add(block);
            }
        }
        return new ChatMessage(Role.ASSISTANT, text(textBlocks, where), List.copyOf(calls), Optional.empty())
                .withReasoning(Optional.of(thinking.toString()));
    }

    /** A string, or an array of content blocks of which only text counts (thinking blocks are dropped). */
    private static String text(JsonNode content, String where) {
        if (content.isTextual()) {
            return content.asText();
        }
        if (!content.isArray()) {
            throw ApiException.invalid(where, where + " must be a string or an array of content blocks");
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode block : content) {
            String type = block.path("type").asText("");
            switch (type) {
                case "text" -> {
                    if (!block.path("text").isTextual()) {
                        throw ApiException.invalid(where, "a text block needs a string 'text'");
                    }
                    if (!text.isEmpty()) {
                        text.append('\n');
                    }
                    text.append(block.path("text").asText());
                }
                case "thinking", "redacted_thinking" -> {
                    // earlier reasoning is not shown to the model again
                }
                case "image" -> throw ApiException.invalidCode("unsupported_content", where,
                        "image blocks are read in user messages only");
                case "document" -> throw ApiException.invalidCode("unsupported_content", where,
                        "content of type 'document' is not supported: send text and image blocks");
                case "tool_use", "tool_result" -> throw ApiException.invalid(where, "a " + type + " block belongs"
                        + " in " + (type.equals("tool_use") ? "an assistant" : "a user") + " message's content");
                default -> throw ApiException.invalid(where, "content blocks of type '" + type
                        + "' are not supported here (text, thinking, tool_use, tool_result)");
            }
        }
        return text.toString();
    }

    /**
     * Anthropic's structured output, {@code output_config.format} (or the beta's top-level {@code output_format}):
     * {@code {"type": "json_schema", "schema": {...}}}, checked as the other APIs' JSON schemas are.
     */
    private static Optional<OutputFormat> outputFormat(FieldReader f) {
        String param = "output_config.format";
        Optional<JsonNode> format = f.raw("output_config").map(c -> c.path("format")).filter(JsonNode::isObject);
        if (format.isEmpty()) {
            param = "output_format";
            format = f.raw("output_format");
        }
        if (format.isEmpty()) {
            return Optional.empty();
        }
        if (!format.get().path("type").asText("").equals("json_schema") || !format.get().path("schema").isObject()) {
            throw ApiException.invalid(param, "'" + param + "' must be {\"type\": \"json_schema\", \"schema\": {...}}");
        }
        return Optional.of(Schemas.bare(format.get().path("schema"), param + ".schema"));
    }

    private static Optional<String> conversationKey(FieldReader f, Optional<String> chatIdHeader) {
        Optional<String> user = f.object("metadata").map(n -> n.path("user_id")).filter(JsonNode::isTextual)
                .map(JsonNode::asText)
                .filter(s -> !s.isBlank());
        if (chatIdHeader.isEmpty() && user.isPresent()) {
            return Optional.of("user:" + user.get());
        }
        return CommonFields.conversationKey(f, chatIdHeader);
    }
}
