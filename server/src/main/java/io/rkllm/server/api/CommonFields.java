package io.rkllm.server.api;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
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
import java.util.stream.Stream;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The fields every chat-like API shares, read the same way for all of them: the body as a JSON object, the model,
 * the token limit, sampling, stop strings, the conversation key, and OpenAI-style messages and function tools
 * (which Ollama's API shares). Unknown fields are ignored and explicit nulls mean absent, as real clients need; the
 * types of the fields used are checked and every problem is a 400 naming the parameter.
 */
public final class CommonFields {
    private final ObjectMapper mapper;
    private final RequestLimits limits;
    private final ImageSources images;

    public CommonFields(ObjectMapper mapper, RequestLimits limits) {
        this(mapper, limits, new ImageSources(ImageSources.Settings.DEFAULT));
    }

    public CommonFields(ObjectMapper mapper, RequestLimits limits, ImageSources images) {
        this.mapper = mapper;
        this.limits = limits;
        this.images = images;
    }

    public RequestLimits limits() {
        return limits;
    }

    /** Where pictures come from. */
    public ImageSources images() {
        return images;
    }

    public ObjectNode object(byte[] body) {
        if (body.length == 0) {
            throw ApiException.invalid(null, "the request body is empty: send a JSON object");
        }
        int malformed = Utf8Check.firstMalformed(body);
        if (malformed >= 0) {
            throw ApiException.invalid(null, "the request body is not valid UTF-8 (byte " + malformed + " starts no"
                    + " character): send JSON in UTF-8");
        }
        JsonNode node;
        try {
            node = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(body);
        } catch (StreamConstraintsException e) {
            // valid JSON beyond what the server reads: a text too long, values nested too deep
            throw ApiException.invalid(null, "the request body is beyond this server's limits: "
                    + JsonProblem.describe(e));
        } catch (JacksonException e) {
            throw ApiException.invalid(null, "the request body is not valid JSON: " + JsonProblem.describe(e));
        } catch (IOException e) {
            throw ApiException.invalid(null, "the request body could not be read");
        }
        if (node == null || !node.isObject()) {
            throw ApiException.invalid(null, "the request body must be a JSON object");
        }
        return (ObjectNode) node;
    }

    public String model(FieldReader f) {
        return f.string("model").orElse("");
    }

    public OptionalInt maxTokens(FieldReader f) {
        OptionalInt value = maxTokens(f, "max_completion_tokens");
        return value.isPresent() ? value : maxTokens(f, "max_tokens");
    }

    /** The token limit in field {@code param}, within the configured ceiling. */
    public OptionalInt maxTokens(FieldReader f, String param) {
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

    public SamplingOverrides sampling(FieldReader f) {
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
                f.longValue("seed").map(OptionalLong::of).orElse(OptionalLong.empty()))
                .withTail(f.integer("repeat_last_n").map(n -> {
                    if (n < -1) {
                        throw ApiException.invalid("repeat_last_n", "'repeat_last_n' must be -1 (the whole context),"
                                + " 0 (no penalty) or more");
                    }
                    return OptionalInt.of(n);
                }).orElse(OptionalInt.empty()), range(f, "typical_p", 0, 1));
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

    public List<String> stop(FieldReader f) {
        return stop(f, "stop");
    }

    /** The stop strings in field {@code name}: a string or an array of strings, bounded by the limits. */
    public List<String> stop(FieldReader f, String name) {
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

    public static Optional<String> conversationKey(FieldReader f, Optional<String> chatIdHeader) {
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

    public Optional<String> tools(FieldReader f) {
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

    public List<ChatMessage> messages(ArrayNode array) {
        return messages(array, images.intake());
    }

    public List<ChatMessage> messages(ArrayNode array, ImageSources.Intake intake) {
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
        // an earlier answer's reasoning, as llama-server and DeepSeek return it (reasoning_content), OpenRouter and
        // vLLM (reasoning), Ollama (thinking): templates that write reasoning back get it
        // (leniently: a field of another type is something else, not a reason to refuse the request)
        Optional<String> reasoning = role != Role.ASSISTANT ? Optional.empty() : Stream.of("reasoning_content",
                "reasoning", "thinking").map(f::raw).flatMap(Optional::stream).filter(JsonNode::isTextual)
                .map(JsonNode::asText).findFirst();
        return new ChatMessage(role, content, calls, toolCallId, pictures).withReasoning(reasoning);
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
