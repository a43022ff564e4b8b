package io.rkllm.server.http.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.FieldReader;
import io.rkllm.server.api.LogprobsFields;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;

/**
 * Turns an OpenAI Responses API body ({@code POST /v1/responses}) into the pipeline's {@link ChatRequest}:
 * {@code input} as a string or items (messages with text parts, {@code function_call}, {@code function_call_output},
 * {@code item_reference} to the output of a stored response; {@code reasoning} items are dropped as on the other
 * routes), {@code instructions}, function {@code tools} in the
 * Responses' flat shape, {@code tool_choice}, {@code parallel_tool_calls}, {@code max_output_tokens},
 * {@code temperature}/{@code top_p}, {@code reasoning.effort} (thinking on or off), {@code text.format}
 * ({@code json_object}, {@code json_schema}), {@code stream}, {@code store} and {@code previous_response_id} (resolved
 * by the route, which holds the stored responses). What the server cannot do is refused with a 400 naming the
 * field (hosted tools, background mode, stored prompts and conversations, images and files), never ignored.
 */
public final class ResponsesRequestParser {
    /** Fields whose value changes what the model must do, and which this server cannot honour. */
    private static final Set<String> REFUSED_IF_SET = Set.of("conversation", "prompt");

    private final CommonFields common;
    private final RequestLimits limits;

    public ResponsesRequestParser(CommonFields common, RequestLimits limits) {
        this.common = common;
        this.limits = limits;
    }

    /**
     * A parsed Responses request.
     *
     * @param base the request with the new input only (and the instructions first, as the system message)
     * @param instructions the {@code instructions}, which a later response does not inherit
     * @param input the new input, as messages
     * @param previousResponseId the response whose conversation this one continues
     * @param store whether the response is kept for a later {@code previous_response_id} (the API's default: true)
     * @param reasoningSummary the client asked for a reasoning summary ({@code reasoning.summary}): the reasoning goes
     *                         in the reasoning item's {@code summary} (there is no summariser: it is the whole
     *                         reasoning) rather than its {@code content}
     * @param echo the request's settings as the response object repeats them (instructions, tools, text, ...)
     * @param namespaces the namespace of each function offered inside a {@code namespace} tool, by function name:
     *                   a call of it names its namespace, as the client expects it back
     * @param ignoredTools hosted tools left out (nothing runs them here), for the response's note
     */
    public record ResponsesRequest(ChatRequest base, Optional<String> instructions, List<ChatMessage> input,
                                   Optional<String> previousResponseId, boolean store, boolean reasoningSummary,
                                   ObjectNode echo, Map<String, String> namespaces, List<String> ignoredTools) {

        /** The request to run: the instructions, then {@code history} (a previous response's conversation), then the input. */
        public ChatRequest request(List<ChatMessage> history) {
            List<ChatMessage> messages = new ArrayList<>();
            instructions.ifPresent(text -> messages.add(ChatMessage.of(Role.SYSTEM, text)));
            messages.addAll(history);
            messages.addAll(input);
            return base.withMessages(messages);
        }
    }

    /**
     * @param storedItems the output items of stored responses by id, for {@code item_reference} input items (which
     *                    the AI SDK sends for earlier assistant output when responses are stored)
     */
    public ResponsesRequest parse(byte[] body, Optional<String> chatIdHeader,
                                  Function<String, Optional<JsonNode>> storedItems) {
        ObjectNode root = common.object(body);
        FieldReader f = new FieldReader(root);
        for (String field : REFUSED_IF_SET) {
            if (f.raw(field).isPresent()) {
                throw ApiException.invalid(field, "'" + field + "' is not supported: this server keeps no stored"
                        + " prompts or conversations; send 'input' (and 'previous_response_id')");
            }
        }
        if (f.bool("background").orElse(false)) {
            throw ApiException.invalid("background", "background responses are not supported: use stream or wait"
                    + " for the response");
        }
        Optional<String> instructions = f.string("instructions").filter(s -> !s.isEmpty());
        List<ChatMessage> input = input(f, storedItems);
        ArrayNode responsesTools = JsonNodeFactory.instance.arrayNode();
        Map<String, String> namespaces = new LinkedHashMap<>();
        List<String> ignoredTools = new ArrayList<>();
        Optional<String> tools = new ResponsesTools(limits).tools(f, responsesTools, namespaces, ignoredTools);
        Optional<ToolChoice> choice = ResponsesTools.toolChoice(f, tools);
        Optional<OutputFormat> format = textFormat(f);
        OptionalInt maxTokens = common.maxTokens(f, "max_output_tokens");
        ReasoningRequest reasoning = reasoning(f);
        boolean parallel = f.bool("parallel_tool_calls").orElse(true);
        List<ChatMessage> messages = new ArrayList<>();
        instructions.ifPresent(text -> messages.add(ChatMessage.of(Role.SYSTEM, text)));
        messages.addAll(input);
        ChatRequest base = new ChatRequest(common.model(f), List.copyOf(messages),
                new ChatRequest.Delivery(f.bool("stream").orElse(false), false, !truncates(f)),
                new ChatRequest.Output(maxTokens, common.sampling(f), List.of(), format, reasoning.asked(),
                        LogprobsFields.responses(f)),
                new ChatRequest.ToolUse(choice.isEmpty() ? Optional.empty() : Tools.only(tools, choice.get()),
                        choice.orElse(ToolChoice.AUTO), parallel),
                CommonFields.conversationKey(f, chatIdHeader));
        boolean store = f.bool("store").orElse(true);
        Optional<String> previous = f.string("previous_response_id").filter(s -> !s.isBlank());
        ObjectNode echo = echo(f, instructions, maxTokens, responsesTools, parallel, store, previous, reasoning);
        return new ResponsesRequest(base, instructions, List.copyOf(input), previous, store,
                reasoning.summary().isPresent(), echo, Map.copyOf(namespaces), List.copyOf(ignoredTools));
    }

    /** {@code input}: a string (one user message) or an array of items. */
    private List<ChatMessage> input(FieldReader f, Function<String, Optional<JsonNode>> storedItems) {
        JsonNode input = f.raw("input").orElseThrow(() -> ApiException.invalid("input",
                "'input' is required: a string or an array of input items"));
        if (input.isTextual()) {
            return List.of(ChatMessage.of(Role.USER, input.asText()));
        }
        if (!input.isArray()) {
            throw ApiException.invalid("input", "'input' must be a string or an array of input items");
        }
        if (input.isEmpty()) {
            throw ApiException.invalid("input", "'input' must not be empty");
        }
        if (input.size() > limits.maxMessages()) {
            throw ApiException.invalid("input", "at most " + limits.maxMessages() + " input items are allowed");
        }
        List<ChatMessage> messages = new ArrayList<>();
        ImageSources.Intake pictures = common.images().intake();
        for (int i = 0; i < input.size(); i++) {
            item(input.get(i), "input[" + i + "]", messages, storedItems, pictures);
        }
        return messages;
    }

    /** One input item, added to {@code messages}: function calls join the assistant message right before them. */
    private static void item(JsonNode item, String where, List<ChatMessage> messages,
                             Function<String, Optional<JsonNode>> storedItems, ImageSources.Intake pictures) {
        if (!item.isObject()) {
            throw ApiException.invalid(where, where + " must be an object");
        }
        String type = item.path("type").asText(item.has("role") ? "message" : "");
        switch (type) {
            case "message" -> messages.add(message(item, where, pictures));
            case "function_call" -> {
                if (!item.path("name").isTextual() || !item.path("call_id").isTextual()) {
                    throw ApiException.invalid(where, "a function_call item needs 'call_id' and 'name'");
                }
                JsonNode args = item.path("arguments");
                ToolCallRecord call = new ToolCallRecord(item.path("call_id").asText(), item.path("name").asText(),
                        args.isTextual() ? args.asText() : args.isObject() ? args.toString() : "{}");
                ChatMessage last = messages.isEmpty() ? null : messages.getLast();
                if (last != null && last.role() == Role.ASSISTANT) {
                    List<ToolCallRecord> calls = new ArrayList<>(last.toolCalls());
                    calls.add(call);
                    messages.set(messages.size() - 1, new ChatMessage(Role.ASSISTANT, last.content(),
                            List.copyOf(calls), Optional.empty()));
                } else {
                    messages.add(new ChatMessage(Role.ASSISTANT, "", List.of(call), Optional.empty()));
                }
            }
            case "function_call_output" -> {
                if (!item.path("call_id").isTextual()) {
                    throw ApiException.invalid(where, "a function_call_output item needs 'call_id'");
                }
                JsonNode output = item.path("output");
                String text = output.isTextual() ? output.asText() : text(output, where + ".output");
                messages.add(new ChatMessage(Role.TOOL, text, List.of(), Optional.of(item.path("call_id").asText())));
            }
            case "reasoning" -> {
                // earlier reasoning is not shown to the model again (as on the other routes)
            }
            case "item_reference" -> {
                String id = item.path("id").asText("");
                JsonNode stored = storedItems.apply(id).filter(i -> !i.path("type").asText().equals("item_reference"))
                        .orElseThrow(() -> ApiException.invalid(where, "the item '" + id + "' is not stored here"
                                + " (only the output of the last stored responses is kept, in memory): send the item"
                                + " itself"));
                item(stored, where, messages, storedItems, pictures);
            }
            default -> throw ApiException.invalid(where + ".type", "input items of type '" + type + "' are not"
                    + " supported (message, function_call, function_call_output, reasoning, item_reference)");
        }
    }

    private static ChatMessage message(JsonNode item, String where, ImageSources.Intake pictures) {
        String role = item.path("role").asText("");
        Role r = switch (role) {
            case "user" -> Role.USER;
            case "assistant" -> Role.ASSISTANT;
            case "system", "developer" -> Role.SYSTEM;
            default -> throw ApiException.invalid(where + ".role", "unknown role '" + role
                    + "' (use user, assistant, system or developer)");
        };
        JsonNode content = item.path("content");
        List<ChatImage> images = new ArrayList<>();
        String text = content.isTextual() ? content.asText() : text(content, where + ".content", pictures, images);
        if (!images.isEmpty() && r != Role.USER) {
            throw ApiException.invalidCode("unsupported_content", where + ".content", "pictures go in user messages");
        }
        return new ChatMessage(r, text, List.of(), Optional.empty(), images);
    }

    /** The text of content parts without pictures (a function call's output). */
    private static String text(JsonNode parts, String where) {
        return text(parts, where, null, new ArrayList<>());
    }

    /**
     * The text of an array of content parts (input_text, output_text, refusal); {@code input_image} parts (an
     * {@code image_url} data: URL) go to {@code images} when {@code pictures} takes them; files and audio refused.
     */
    private static String text(JsonNode parts, String where, ImageSources.Intake pictures, List<ChatImage> images) {
        if (!parts.isArray()) {
            throw ApiException.invalid(where, where + " must be a string or an array of content parts");
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode part : parts) {
            String type = part.path("type").asText("");
            String value = switch (type) {
                case "input_text", "output_text", "text" -> part.path("text").isTextual() ? part.path("text").asText()
                        : null;
                case "refusal" -> part.path("refusal").isTextual() ? part.path("refusal").asText() : null;
                case "input_image" -> {
                    if (pictures == null || !part.path("image_url").isTextual()) {
                        throw ApiException.invalidCode("unsupported_content", where, pictures == null
                                ? "pictures are not supported here" : "an input_image part needs 'image_url': a"
                                + " data: URL (file_id is not supported: this server stores no files)");
                    }
                    images.add(pictures.url(part.path("image_url").asText(), where + ".image_url"));
                    yield null;
                }
                case "input_file", "input_audio" -> throw ApiException.invalidCode(
                        "unsupported_content", where, "content of type '" + type + "' is not supported: send text"
                                + " and input_image parts");
                default -> throw ApiException.invalid(where, "unknown content part type '" + type + "'");
            };
            if (type.equals("input_image")) {
                continue;
            }
            if (value == null) {
                throw ApiException.invalid(where, "a " + type + " part needs its text");
            }
            if (!text.isEmpty()) {
                text.append('\n');
            }
            text.append(value);
        }
        return text.toString();
    }

    /** {@code text.format}: text (nothing to enforce), json_object, or json_schema with its name and schema. */
    private static Optional<OutputFormat> textFormat(FieldReader f) {
        Optional<JsonNode> text = f.raw("text");
        if (text.isEmpty()) {
            return Optional.empty();
        }
        if (!text.get().isObject()) {
            throw ApiException.invalid("text", "'text' must be an object ({\"format\": {...}})");
        }
        JsonNode format = text.get().path("format");
        if (format.isMissingNode() || format.isNull()) {
            return Optional.empty();
        }
        String type = format.path("type").asText("");
        return switch (type) {
            case "text" -> Optional.empty();
            case "json_object" -> Optional.of(new OutputFormat.JsonObject());
            case "json_schema" -> Optional.of(Schemas.format(format, "text.format"));
            default -> throw ApiException.invalid("text.format", "text.format type '" + type
                    + "' is not supported (text, json_object, json_schema)");
        };
    }

    /** {@code reasoning}: the effort turns thinking on or off; a summary asked for changes where reasoning goes. */
    private record ReasoningRequest(Optional<Boolean> thinking, Optional<String> effort, Optional<String> summary) {
        /** On or off, and the effort a template may take (xhigh and max are the highest there is: high). */
        Thinking asked() {
            Optional<String> level = thinking.orElse(false) ? effort.map(e -> e.toLowerCase(Locale.ROOT))
                    .map(e -> e.equals("xhigh") || e.equals("max") ? "high" : e) : Optional.empty();
            return new Thinking(thinking, level, Map.of());
        }
    }

    private static ReasoningRequest reasoning(FieldReader f) {
        Optional<JsonNode> node = f.raw("reasoning");
        if (node.isEmpty()) {
            return new ReasoningRequest(Optional.empty(), Optional.empty(), Optional.empty());
        }
        if (!node.get().isObject()) {
            throw ApiException.invalid("reasoning", "'reasoning' must be an object ({\"effort\": ...})");
        }
        FieldReader r = new FieldReader((ObjectNode) node.get());
        Optional<String> effort = r.string("effort");
        Optional<Boolean> thinking = effort.map(e -> switch (e.toLowerCase(Locale.ROOT)) {
            case "none", "minimal" -> false;
            case "low", "medium", "high", "xhigh", "max" -> true;
            default -> throw ApiException.invalid("reasoning.effort",
                    "'reasoning.effort' must be one of none, minimal, low, medium, high, xhigh, max");
        });
        Optional<String> summary = r.string("summary").or(() -> r.string("generate_summary"));
        return new ReasoningRequest(thinking, effort, summary);
    }

    /** The request's settings as the response object repeats them. */
    private static ObjectNode echo(FieldReader f, Optional<String> instructions, OptionalInt maxTokens, ArrayNode tools,
                                   boolean parallel, boolean store, Optional<String> previous,
                                   ReasoningRequest reasoning) {
        ObjectNode echo = JsonNodeFactory.instance.objectNode();
        if (instructions.isPresent()) {
            echo.put("instructions", instructions.get());
        } else {
            echo.putNull("instructions");
        }
        if (maxTokens.isPresent()) {
            echo.put("max_output_tokens", maxTokens.getAsInt());
        } else {
            echo.putNull("max_output_tokens");
        }
        echo.set("metadata", f.raw("metadata").filter(JsonNode::isObject).orElse(
                JsonNodeFactory.instance.objectNode()));
        echo.put("parallel_tool_calls", parallel);
        if (previous.isPresent()) {
            echo.put("previous_response_id", previous.get());
        } else {
            echo.putNull("previous_response_id");
        }
        ObjectNode r = echo.putObject("reasoning");
        putOrNull(r, "effort", reasoning.effort());
        putOrNull(r, "summary", reasoning.summary());
        echo.put("store", store);
        echo.set("temperature", f.raw("temperature").filter(JsonNode::isNumber).orElse(
                JsonNodeFactory.instance.nullNode()));
        echo.set("top_p", f.raw("top_p").filter(JsonNode::isNumber).orElse(JsonNodeFactory.instance.nullNode()));
        JsonNode text = f.raw("text").filter(t -> t.path("format").isObject()).orElse(null);
        echo.set("text", text != null ? text : JsonNodeFactory.instance.objectNode().set("format",
                JsonNodeFactory.instance.objectNode().put("type", "text")));
        echo.set("tool_choice", f.raw("tool_choice").orElse(JsonNodeFactory.instance.textNode("auto")));
        echo.set("tools", tools);
        // the conversation is fitted to the context unless the client says "disabled" (X-RKLLM-Context-Trimmed);
        // OpenAI's default is "disabled", but a client that says nothing gets the fit, as on every other route
        echo.put("truncation", truncates(f) ? "auto" : "disabled");
        putOrNull(echo, "user", f.raw("user").filter(JsonNode::isTextual).map(JsonNode::asText));
        return echo;
    }

    /**
     * {@code truncation}: {@code auto} or absent lets the oldest exchanges be left out to fit the context,
     * {@code disabled} asks for a 400 instead; anything else is refused.
     */
    private static boolean truncates(FieldReader f) {
        Optional<String> value = f.string("truncation");
        if (value.isPresent() && !value.get().equals("auto") && !value.get().equals("disabled")) {
            throw ApiException.invalid("truncation", "'truncation' must be \"auto\" or \"disabled\"");
        }
        return !value.orElse("auto").equals("disabled");
    }

    private static void putOrNull(ObjectNode node, String name, Optional<String> value) {
        if (value.isPresent()) {
            node.put(name, value.get());
        } else {
            node.putNull(name);
        }
    }
}
