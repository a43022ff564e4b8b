package io.rkllm.server.api;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.request.ChatImage;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.OutputFormat;
import io.rkllm.server.pipeline.request.ToolChoice;
import io.rkllm.server.pipeline.request.Role;
import io.rkllm.server.pipeline.request.SamplingOverrides;
import io.rkllm.server.pipeline.request.ToolCallRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Turns a chat or legacy completion body into a {@link ChatRequest}. Unknown fields are ignored and
 * explicit nulls mean absent, as real clients need; the types of the fields we use are checked and
 * every problem is a 400 naming the parameter.
 */
public final class ChatRequestParser {
    private final ObjectMapper mapper;
    private final RequestLimits limits;
    private final ImageSources images;

    public ChatRequestParser(ObjectMapper mapper, RequestLimits limits) {
        this(mapper, limits, new ImageSources(ImageSources.Settings.DEFAULT));
    }

    public ChatRequestParser(ObjectMapper mapper, RequestLimits limits, ImageSources images) {
        this.mapper = mapper;
        this.limits = limits;
        this.images = images;
    }

    /** Where pictures come from, for the other APIs' parsers. */
    ImageSources images() {
        return images;
    }

    public ChatRequest parseChat(byte[] body, Optional<String> chatIdHeader) {
        ObjectNode root = object(body);
        FieldReader f = new FieldReader(root);
        List<ChatMessage> messages = messages(f.array("messages").orElseThrow(
                () -> ApiException.invalid("messages", "'messages' is required: a non-empty array of messages")));
        f.integer("n").ifPresent(n -> {
            if (n != 1) {
                throw ApiException.invalid("n", "only n=1 is supported: the NPU generates one choice at a time");
            }
        });
        refuseWhatCannotBeDone(f);
        Optional<OutputFormat> format = responseFormat(f);
        Optional<String> tools = tools(f);
        Optional<ToolChoice> choice = toolChoice(f, tools);
        return new ChatRequest(model(f), messages, f.bool("stream").orElse(false), includeUsage(f),
                maxTokens(f), sampling(f), stop(f), choice.isEmpty() ? Optional.empty() : Tools.only(tools,
                choice.get()), choice.orElse(ToolChoice.AUTO), f.bool("parallel_tool_calls").orElse(true), format,
                thinking(f), conversationKey(f, chatIdHeader), false);
    }

    public ChatRequest parseCompletion(byte[] body) {
        ObjectNode root = object(body);
        FieldReader f = new FieldReader(root);
        JsonNode promptNode = f.raw("prompt").orElseThrow(() -> ApiException.invalid("prompt", "'prompt' is required"));
        String prompt;
        if (promptNode.isTextual()) {
            prompt = promptNode.asText();
        } else if (promptNode.isArray() && promptNode.size() == 1 && promptNode.get(0).isTextual()) {
            prompt = promptNode.get(0).asText();
        } else {
            throw ApiException.invalid("prompt", "'prompt' must be a string (or an array holding one string)");
        }
        f.integer("n").ifPresent(n -> {
            if (n != 1) {
                throw ApiException.invalid("n", "only n=1 is supported");
            }
        });
        if (prompt.isEmpty()) {
            throw ApiException.invalid("prompt", "'prompt' must not be empty");
        }
        if (!f.string("suffix").orElse("").isEmpty()) {
            throw ApiException.invalid("suffix", "'suffix' (fill in the middle) is not supported by the models"
                    + " served here");
        }
        if (f.bool("echo").orElse(false)) {
            throw ApiException.invalid("echo", "'echo' is not supported: the answer does not repeat the prompt");
        }
        f.integer("best_of").ifPresent(n -> {
            if (n != 1) {
                throw ApiException.invalid("best_of", "only best_of=1 is supported");
            }
        });
        return new ChatRequest(model(f), List.of(ChatMessage.of(Role.USER, prompt)), f.bool("stream").orElse(false),
                includeUsage(f), maxTokens(f), sampling(f), stop(f), Optional.empty(), ToolChoice.AUTO, true,
                responseFormat(f), Optional.of(false), conversationKey(f, Optional.empty()), true);
    }

    ObjectNode object(byte[] body) {
        if (body.length == 0) {
            throw ApiException.invalid(null, "the request body is empty: send a JSON object");
        }
        JsonNode node;
        try {
            node = mapper.readTree(body);
        } catch (JacksonException e) {
            throw ApiException.invalid(null, "the request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw ApiException.invalid(null, "the request body could not be read");
        }
        if (node == null || !node.isObject()) {
            throw ApiException.invalid(null, "the request body must be a JSON object");
        }
        return (ObjectNode) node;
    }

    String model(FieldReader f) {
        return f.string("model").orElse("");
    }

    private boolean includeUsage(FieldReader f) {
        return f.raw("stream_options").filter(JsonNode::isObject)
                .map(o -> new FieldReader((ObjectNode) o).bool("include_usage").orElse(false)).orElse(false);
    }

    OptionalInt maxTokens(FieldReader f) {
        OptionalInt value = maxTokens(f, "max_completion_tokens");
        return value.isPresent() ? value : maxTokens(f, "max_tokens");
    }

    /** The token limit in field {@code param}, within the configured ceiling. */
    OptionalInt maxTokens(FieldReader f, String param) {
        Optional<Integer> value = f.integer(param);
        if (value.isEmpty()) {
            return OptionalInt.empty();
        }
        int v = value.get();
        if (v < 1) {
            throw ApiException.invalid(param, "'" + param + "' must be at least 1");
        }
        if (v > limits.maxTokensCeiling()) {
            throw ApiException.invalid(param, "'" + param + "' must be at most " + limits.maxTokensCeiling());
        }
        return OptionalInt.of(v);
    }

    SamplingOverrides sampling(FieldReader f) {
        return new SamplingOverrides(
                range(f, "temperature", 0, 2),
                range(f, "top_p", 0, 1),
                f.integer("top_k").map(k -> {
                    if (k < 0) {
                        throw ApiException.invalid("top_k", "'top_k' must not be negative");
                    }
                    return OptionalInt.of(k);
                }).orElse(OptionalInt.empty()),
                range(f, "repeat_penalty", 0, 10),
                range(f, "presence_penalty", -2, 2),
                range(f, "frequency_penalty", -2, 2),
                range(f, "min_p", 0, 1),
                f.longValue("seed").map(OptionalLong::of).orElse(OptionalLong.empty()));
    }

    private static OptionalDouble range(FieldReader f, String name, double min, double max) {
        Optional<Double> value = f.number(name);
        if (value.isEmpty()) {
            return OptionalDouble.empty();
        }
        double v = value.get();
        if (!(v >= min && v <= max)) {
            throw ApiException.invalid(name, "'" + name + "' must be between " + fmt(min) + " and " + fmt(max));
        }
        return OptionalDouble.of(v);
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    List<String> stop(FieldReader f) {
        return stop(f, "stop");
    }

    /** The stop strings in field {@code name}: a string or an array of strings, bounded by the limits. */
    List<String> stop(FieldReader f, String name) {
        Optional<JsonNode> node = f.raw(name);
        if (node.isEmpty()) {
            return List.of();
        }
        List<String> stops = new ArrayList<>();
        JsonNode n = node.get();
        if (n.isTextual()) {
            stops.add(n.asText());
        } else if (n.isArray()) {
            for (JsonNode s : n) {
                if (!s.isTextual()) {
                    throw ApiException.invalid(name, "'" + name + "' must be a string or an array of strings");
                }
                stops.add(s.asText());
            }
        } else {
            throw ApiException.invalid(name, "'" + name + "' must be a string or an array of strings");
        }
        stops.removeIf(String::isEmpty);
        if (stops.size() > limits.maxStopStrings()) {
            throw ApiException.invalid(name, "at most " + limits.maxStopStrings() + " stop strings are allowed");
        }
        for (String s : stops) {
            if (s.length() > limits.maxStopLength()) {
                throw ApiException.invalid(name, "stop strings may be at most " + limits.maxStopLength()
                        + " characters long");
            }
        }
        return List.copyOf(stops);
    }

    private Optional<Boolean> thinking(FieldReader f) {
        Optional<JsonNode> kwargs = f.raw("chat_template_kwargs").filter(JsonNode::isObject);
        if (kwargs.isPresent()) {
            Optional<Boolean> enable = new FieldReader((ObjectNode) kwargs.get()).bool("enable_thinking");
            if (enable.isPresent()) {
                return enable;
            }
        }
        Optional<String> effort = f.string("reasoning_effort");
        if (effort.isPresent()) {
            String e = effort.get().toLowerCase(Locale.ROOT);
            return switch (e) {
                case "none", "minimal" -> Optional.of(false);
                case "low", "medium", "high" -> Optional.of(true);
                default -> throw ApiException.invalid("reasoning_effort",
                        "'reasoning_effort' must be one of none, minimal, low, medium, high");
            };
        }
        Optional<JsonNode> think = f.raw("think");
        if (think.isPresent() && think.get().isBoolean()) {
            return Optional.of(think.get().asBoolean());
        }
        return Optional.empty();
    }

    /**
     * Chat fields whose silent omission would give the client something else than it asked for: the deprecated
     * {@code functions} (its answers would come as {@code tool_calls}, not {@code function_call}), audio output,
     * web search. Fields that only tune or annotate (logprobs, store, metadata, service_tier...) are listed in
     * api.md's deviations instead.
     */
    private static void refuseWhatCannotBeDone(FieldReader f) {
        if (f.array("functions").filter(a -> !a.isEmpty()).isPresent()) {
            throw ApiException.invalid("functions", "'functions' (deprecated) is not supported: send them as"
                    + " 'tools' ([{\"type\": \"function\", \"function\": {...}}])");
        }
        Optional<JsonNode> modalities = f.raw("modalities");
        if (f.raw("audio").isPresent() || modalities.isPresent() && modalities.get().toString().contains("audio")) {
            throw ApiException.invalid(f.raw("audio").isPresent() ? "audio" : "modalities",
                    "audio output is not supported: the models served here answer in text");
        }
        if (f.raw("web_search_options").isPresent()) {
            throw ApiException.invalid("web_search_options", "web search is not available on this server");
        }
    }

    static Optional<String> conversationKey(FieldReader f, Optional<String> chatIdHeader) {
        if (chatIdHeader.isPresent() && !chatIdHeader.get().isBlank()) {
            return Optional.of("chat:" + chatIdHeader.get().trim());
        }
        Optional<String> key = f.string("prompt_cache_key").filter(s -> !s.isBlank());
        if (key.isPresent()) {
            return Optional.of("key:" + key.get());
        }
        for (String field : List.of("user", "safety_identifier")) {
            Optional<JsonNode> user = f.raw(field);
            if (user.isPresent() && user.get().isTextual() && !user.get().asText().isBlank()) {
                return Optional.of("user:" + user.get().asText());
            }
        }
        return Optional.empty();
    }

    /** {@code response_format}: text (nothing to enforce), json_object, or json_schema with its schema. */
    Optional<OutputFormat> responseFormat(FieldReader f) {
        Optional<JsonNode> format = f.raw("response_format");
        if (format.isEmpty()) {
            return Optional.empty();
        }
        if (!format.get().isObject()) {
            throw ApiException.invalid("response_format", "'response_format' must be an object with a 'type'");
        }
        FieldReader r = new FieldReader((ObjectNode) format.get());
        String type = r.string("type").orElse("text");
        return switch (type) {
            case "text" -> Optional.empty();
            case "json_object" -> Optional.of(new OutputFormat.JsonObject());
            case "json_schema" -> {
                JsonNode spec = r.raw("json_schema").orElseThrow(() -> ApiException.invalid("response_format",
                        "response_format json_schema needs 'json_schema': {\"name\": ..., \"schema\": {...}}"));
                yield Optional.of(Schemas.format(spec, "response_format.json_schema"));
            }
            default -> throw ApiException.invalid("response_format", "response_format type '" + type
                    + "' is not supported (text, json_object, json_schema)");
        };
    }

    Optional<String> tools(FieldReader f) {
        Optional<ArrayNode> tools = f.array("tools");
        if (tools.isEmpty() || tools.get().isEmpty()) {
            return Optional.empty();
        }
        ArrayNode cleaned = JsonNodeFactory.instance.arrayNode();
        for (JsonNode tool : tools.get()) {
            if (!tool.isObject() || !tool.path("function").isObject()
                    || !tool.path("function").path("name").isTextual()
                    || tool.path("function").path("name").asText().isBlank()) {
                throw ApiException.invalid("tools",
                        "each tool must be {\"type\":\"function\",\"function\":{\"name\":...,\"parameters\":...}}");
            }
            String type = tool.path("type").asText("function");
            if (!type.equals("function")) {
                throw ApiException.invalid("tools", "tool type '" + type + "' is not supported (only function)");
            }
            cleaned.add(tool);
        }
        if (cleaned.size() > limits.maxTools()) {
            throw ApiException.invalid("tools", "at most " + limits.maxTools() + " tools are allowed");
        }
        return Optional.of(cleaned.toString());
    }

    /**
     * {@code tool_choice}: empty for "none" (the tools are not offered), else auto, required, or one function
     * (which must be among the tools).
     */
    static Optional<ToolChoice> toolChoice(FieldReader f, Optional<String> tools) {
        Optional<JsonNode> node = f.raw("tool_choice");
        if (node.isEmpty()) {
            return Optional.of(ToolChoice.AUTO);
        }
        JsonNode c = node.get();
        ToolChoice choice;
        if (c.isTextual()) {
            choice = switch (c.asText()) {
                case "none" -> null;
                case "auto" -> ToolChoice.AUTO;
                case "required" -> ToolChoice.REQUIRED;
                default -> throw ApiException.invalid("tool_choice",
                        "'tool_choice' must be none, auto, required or {\"type\":\"function\",...}");
            };
        } else if (c.isObject() && c.path("function").path("name").isTextual()) {
            choice = new ToolChoice.Function(c.path("function").path("name").asText());
        } else if (c.isObject() && c.path("type").asText().equals("function") && c.path("name").isTextual()) {
            choice = new ToolChoice.Function(c.path("name").asText());
        } else {
            throw ApiException.invalid("tool_choice",
                    "'tool_choice' must be none, auto, required or {\"type\":\"function\",\"function\":{\"name\":...}}");
        }
        if (choice == null) {
            return Optional.empty();
        }
        return Optional.of(Tools.offered(choice, tools));
    }

    List<ChatMessage> messages(ArrayNode array) {
        return messages(array, images.intake());
    }

    List<ChatMessage> messages(ArrayNode array, ImageSources.Intake intake) {
        if (array.isEmpty()) {
            throw ApiException.invalid("messages", "'messages' must not be empty");
        }
        if (array.size() > limits.maxMessages()) {
            throw ApiException.invalid("messages", "at most " + limits.maxMessages() + " messages are allowed");
        }
        List<ChatMessage> messages = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            messages.add(message(array.get(i), "messages[" + i + "]", intake));
        }
        return List.copyOf(messages);
    }

    private ChatMessage message(JsonNode node, String where, ImageSources.Intake intake) {
        if (!node.isObject()) {
            throw ApiException.invalid(where, where + " must be an object with 'role' and 'content'");
        }
        FieldReader f = new FieldReader((ObjectNode) node);
        String roleName = f.string("role").orElseThrow(() -> ApiException.invalid(where + ".role",
                where + ".role is required"));
        Role role = switch (roleName) {
            case "system", "developer" -> Role.SYSTEM;
            case "user" -> Role.USER;
            case "assistant" -> Role.ASSISTANT;
            case "tool", "function" -> Role.TOOL;
            default -> throw ApiException.invalid(where + ".role", "unknown role '" + roleName
                    + "' (use system, developer, user, assistant or tool)");
        };
        List<ChatImage> pictures = new ArrayList<>();
        String content = content(f.raw("content"), where, intake, pictures);
        List<ToolCallRecord> calls = role == Role.ASSISTANT ? toolCalls(f, where) : List.of();
        if (content == null) {
            if (role == Role.ASSISTANT && !calls.isEmpty()) {
                content = "";
            } else if (role == Role.ASSISTANT) {
                content = "";
            } else {
                throw ApiException.invalid(where + ".content", where + ".content is required");
            }
        }
        Optional<String> toolCallId = role == Role.TOOL ? f.string("tool_call_id") : Optional.empty();
        return new ChatMessage(role, content, calls, toolCallId, pictures);
    }

    private String content(Optional<JsonNode> node, String where, ImageSources.Intake intake,
                           List<ChatImage> pictures) {
        if (node.isEmpty()) {
            return null;
        }
        JsonNode n = node.get();
        if (n.isTextual()) {
            return n.asText();
        }
        if (!n.isArray()) {
            throw ApiException.invalid(where + ".content", where + ".content must be a string or an array of parts");
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < n.size(); i++) {
            JsonNode part = n.get(i);
            String type = part.path("type").asText("");
            switch (type) {
                case "text", "input_text" -> {
                    if (!part.path("text").isTextual()) {
                        throw ApiException.invalid(where + ".content", "a text part needs a string 'text'");
                    }
                    if (!text.isEmpty()) {
                        text.append('\n');
                    }
                    text.append(part.path("text").asText());
                }
                case "image_url", "input_image" -> pictures.add(image(part, where + ".content[" + i + "]", intake));
                case "input_audio", "file", "image" ->
                        throw ApiException.invalidCode("unsupported_content", where + ".content",
                                "content of type '" + type + "' is not supported: send text and image_url parts");
                default -> throw ApiException.invalid(where + ".content", "unknown content part type '" + type + "'");
            }
        }
        return text.toString();
    }

    /** An {@code image_url} part ({@code {"url": ...}} or the URL itself, as some clients send it). */
    private static ChatImage image(JsonNode part, String where, ImageSources.Intake intake) {
        JsonNode value = part.path("image_url");
        JsonNode url = value.isObject() ? value.path("url") : value;
        if (!url.isTextual()) {
            throw ApiException.invalid(where + ".image_url", "an image_url part needs image_url.url: a data: URL");
        }
        return intake.url(url.asText(), where + ".image_url");
    }

    private List<ToolCallRecord> toolCalls(FieldReader f, String where) {
        Optional<ArrayNode> calls = f.array("tool_calls");
        if (calls.isEmpty()) {
            return List.of();
        }
        List<ToolCallRecord> out = new ArrayList<>();
        for (JsonNode call : calls.get()) {
            JsonNode function = call.path("function");
            if (!function.path("name").isTextual()) {
                throw ApiException.invalid(where + ".tool_calls", "each tool call needs function.name");
            }
            JsonNode args = function.path("arguments");
            String arguments = args.isTextual() ? args.asText() : args.isMissingNode() || args.isNull() ? "{}"
                    : args.toString();
            out.add(new ToolCallRecord(call.path("id").asText(""), function.path("name").asText(), arguments));
        }
        return List.copyOf(out);
    }
}
