package io.rkllm.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.ToolChoice;
import io.rkllm.server.pipeline.request.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Turns an Anthropic Messages API body ({@code POST /v1/messages}) into the pipeline's {@link ChatRequest}:
 * {@code system} as a string or text blocks, {@code messages} with string or text-block content,
 * {@code max_tokens} (required), {@code stop_sequences}, {@code temperature}/{@code top_p}/{@code top_k},
 * {@code stream}, and {@code thinking} ({@code enabled} turns thinking on; off when absent, as on Anthropic's
 * API). Images, documents and tools are refused with a 400: the models here read text and the subset served
 * has no tool use. Thinking blocks sent back in the history are dropped.
 */
public final class AnthropicRequestParser {
    private final ChatRequestParser common;

    public AnthropicRequestParser(ChatRequestParser common) {
        this.common = common;
    }

    public ChatRequest parse(byte[] body, Optional<String> chatIdHeader) {
        ObjectNode root = common.object(body);
        FieldReader f = new FieldReader(root);
        OptionalInt maxTokens = common.maxTokens(f);
        if (maxTokens.isEmpty()) {
            throw ApiException.invalid("max_tokens", "'max_tokens' is required");
        }
        Optional<ArrayNode> tools = f.array("tools");
        if (tools.isPresent() && !tools.get().isEmpty()) {
            throw ApiException.invalid("tools", "tool use is not supported on /v1/messages; use"
                    + " /v1/chat/completions or /api/chat for tools");
        }
        List<ChatMessage> messages = new ArrayList<>();
        Optional<JsonNode> system = f.raw("system");
        if (system.isPresent()) {
            String text = text(system.get(), "system");
            if (!text.isEmpty()) {
                messages.add(ChatMessage.of(Role.SYSTEM, text));
            }
        }
        ArrayNode array = f.array("messages").orElseThrow(() -> ApiException.invalid("messages",
                "'messages' is required: a non-empty array of messages"));
        if (array.isEmpty()) {
            throw ApiException.invalid("messages", "'messages' must not be empty");
        }
        for (int i = 0; i < array.size(); i++) {
            messages.add(message(array.get(i), "messages[" + i + "]"));
        }
        return new ChatRequest(common.model(f), List.copyOf(messages), f.bool("stream").orElse(false), false,
                maxTokens, common.sampling(f), common.stop(f, "stop_sequences"), Optional.empty(), ToolChoice.AUTO,
                true, Optional.empty(), Optional.of(thinking(f)), conversationKey(f, chatIdHeader), false);
    }

    private ChatMessage message(JsonNode node, String where) {
        if (!node.isObject()) {
            throw ApiException.invalid(where, where + " must be an object with 'role' and 'content'");
        }
        FieldReader m = new FieldReader((ObjectNode) node);
        String role = m.string("role").orElseThrow(() -> ApiException.invalid(where + ".role",
                where + ".role is required"));
        Role r = switch (role) {
            case "user" -> Role.USER;
            case "assistant" -> Role.ASSISTANT;
            default -> throw ApiException.invalid(where + ".role", "unknown role '" + role
                    + "' (use user or assistant; the system prompt goes in 'system')");
        };
        JsonNode content = m.raw("content").orElseThrow(() -> ApiException.invalid(where + ".content",
                where + ".content is required"));
        return ChatMessage.of(r, text(content, where + ".content"));
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
                case "image", "document" -> throw ApiException.invalidCode("unsupported_content", where,
                        "content of type '" + type + "' is not supported: the models served here read text only");
                default -> throw ApiException.invalid(where, "content blocks of type '" + type
                        + "' are not supported here (text only)");
            }
        }
        return text.toString();
    }

    /** {@code thinking: {"type": "enabled", ...}} turns thinking on; absent or disabled leaves it off. */
    private static boolean thinking(FieldReader f) {
        Optional<JsonNode> thinking = f.raw("thinking");
        if (thinking.isEmpty()) {
            return false;
        }
        if (!thinking.get().isObject()) {
            throw ApiException.invalid("thinking", "'thinking' must be an object with a 'type'");
        }
        String type = thinking.get().path("type").asText("");
        return switch (type) {
            case "enabled", "adaptive" -> true;
            case "disabled" -> false;
            default -> throw ApiException.invalid("thinking.type", "'thinking.type' must be enabled or disabled");
        };
    }

    private static Optional<String> conversationKey(FieldReader f, Optional<String> chatIdHeader) {
        Optional<String> user = f.raw("metadata").filter(JsonNode::isObject)
                .map(n -> n.path("user_id")).filter(JsonNode::isTextual).map(JsonNode::asText)
                .filter(s -> !s.isBlank());
        if (chatIdHeader.isEmpty() && user.isPresent()) {
            return Optional.of("user:" + user.get());
        }
        return ChatRequestParser.conversationKey(f, chatIdHeader);
    }
}
