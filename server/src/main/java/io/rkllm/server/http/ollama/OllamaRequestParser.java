package io.rkllm.server.http.ollama;

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
import io.rkllm.server.pipeline.request.ChatImage;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.OutputFormat;
import io.rkllm.server.pipeline.request.RawPrompt;
import io.rkllm.server.pipeline.request.Role;
import io.rkllm.server.pipeline.request.Thinking;
import io.rkllm.server.pipeline.request.ToolChoice;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * Turns Ollama's {@code /api/chat} and {@code /api/generate} bodies into the pipeline's {@link ChatRequest},
 * with the same leniency and checks as the OpenAI parser (whose field rules it reuses): {@code options}
 * carries sampling, {@code stop} and {@code num_predict}; {@code think} turns thinking on or off;
 * {@code stream} defaults to true. A request without messages (or prompt) loads the model, or unloads it
 * with {@code keep_alive: 0}, as Ollama does.
 */
public final class OllamaRequestParser {
    private static final Pattern ZERO_DURATION = Pattern.compile("[+-]?(0+(\\.0*)?(ns|us|µs|ms|s|m|h)?)+");

    private final CommonFields common;
    private final RequestLimits limits;

    /** The body as a JSON object, or the error every route gives for one that is not. */
    ObjectNode object(byte[] body) {
        return common.object(body);
    }

    public OllamaRequestParser(CommonFields common, RequestLimits limits) {
        this.common = common;
        this.limits = limits;
    }

    /**
     * A parsed request.
     *
     * @param model the model name as the client gave it (echoed in responses)
     * @param chat what to generate; empty for a load or unload request
     * @param unload with no input: {@code keep_alive} was zero, unload the model
     */
    public record OllamaRequest(String model, Optional<ChatRequest> chat, boolean unload) {
    }

    public OllamaRequest parseChat(byte[] body, Optional<String> chatIdHeader) {
        ObjectNode root = common.object(body);
        FieldReader f = new FieldReader(root);
        String model = common.model(f);
        Optional<ArrayNode> array = f.array("messages");
        if (array.isEmpty() || array.get().isEmpty()) {
            return new OllamaRequest(model, Optional.empty(), unload(f));
        }
        ImageSources.Intake intake = common.images().intake();
        List<ChatMessage> messages = new ArrayList<>(common.messages(array.get(), intake));
        for (int i = 0; i < messages.size(); i++) {
            List<ChatImage> pictures = images(array.get().get(i), "messages[" + i + "].images", intake);
            if (!pictures.isEmpty()) {
                List<ChatImage> all = new ArrayList<>(messages.get(i).images());
                all.addAll(pictures);
                messages.set(i, messages.get(i).withImages(all));
            }
        }
        return new OllamaRequest(model, Optional.of(request(f, model, List.copyOf(messages), common.tools(f),
                chatIdHeader)),
                false);
    }

    public OllamaRequest parseGenerate(byte[] body, Optional<String> chatIdHeader) {
        ObjectNode root = common.object(body);
        FieldReader f = new FieldReader(root);
        String model = common.model(f);
        String prompt = f.string("prompt").orElse("");
        if (prompt.isEmpty()) {
            return new OllamaRequest(model, Optional.empty(), unload(f));
        }
        List<ChatImage> pictures = images(root, "images", common.images().intake());
        refuseWhatChangesThePrompt(f);
        Optional<String> suffix = f.string("suffix").filter(s -> !s.isEmpty());
        if (f.bool("raw").orElse(false) || suffix.isPresent()) {
            // as Ollama: no template (a suffix is read through the model's fill-in-the-middle tokens), no system
            if (!pictures.isEmpty()) {
                throw ApiException.invalid("images", "'images' cannot go with a raw prompt or a 'suffix': a picture"
                        + " takes its place in the chat template");
            }
            if (f.bool("raw").orElse(false) && !f.string("system").orElse("").isEmpty()) {
                throw ApiException.invalid("system", "'system' cannot go with 'raw': a raw prompt has no template"
                        + " to put it in (write it into the prompt)");
            }
            ChatRequest chat = request(f, model, List.of(ChatMessage.of(Role.USER, prompt)), Optional.empty(),
                    chatIdHeader);
            return new OllamaRequest(model, Optional.of(ChatRequest.forRawPrompt(model, new RawPrompt(prompt, suffix),
                    chat.delivery(), chat.output(), chat.conversationKey())), false);
        }
        List<ChatMessage> messages = new ArrayList<>();
        f.string("system").filter(s -> !s.isEmpty()).ifPresent(s -> messages.add(ChatMessage.of(Role.SYSTEM, s)));
        messages.add(ChatMessage.of(Role.USER, prompt).withImages(pictures));
        return new OllamaRequest(model, Optional.of(request(f, model, List.copyOf(messages), Optional.empty(),
                chatIdHeader)), false);
    }

    /**
     * {@code template} and {@code context} ask Ollama to read the prompt otherwise than through the model's template
     * with no history: the answer to the same prompt read through the template would not be the one asked for, so they
     * are refused rather than ignored (empty and an empty list ask for nothing).
     */
    private static void refuseWhatChangesThePrompt(FieldReader f) {
        if (!f.string("template").orElse("").isEmpty()) {
            throw ApiException.invalid("template", "'template' is not supported: the server uses the model's own"
                    + " chat template (a model.yaml beside the model can set another)");
        }
        if (f.array("context").map(a -> !a.isEmpty()).orElse(false)) {
            throw ApiException.invalid("context", "'context' (token ids of an earlier answer) is not supported: send"
                    + " the conversation to /api/chat as messages; the KV cache keeps it without the ids");
        }
    }

    private ChatRequest request(FieldReader f, String model, List<ChatMessage> messages, Optional<String> tools,
                                Optional<String> chatIdHeader) {
        FieldReader options = new FieldReader(f.object("options").orElseGet(JsonNodeFactory.instance::objectNode));
        return new ChatRequest(model, messages,
                new ChatRequest.Delivery(f.bool("stream").orElse(true), false,
                        !f.bool("truncate").orElse(true)),
                new ChatRequest.Output(numPredict(options), common.sampling(options), common.stop(options), format(f),
                        think(f), LogprobsFields.ollama(f)),
                new ChatRequest.ToolUse(tools, ToolChoice.AUTO, true),
                CommonFields.conversationKey(f, chatIdHeader));
    }

    /** {@code num_predict}: -1 (infinite) and -2 (fill the context) mean no limit. */
    private OptionalInt numPredict(FieldReader options) {
        Optional<Integer> value = options.integer("num_predict");
        if (value.isEmpty() || value.get() <= 0) {
            return OptionalInt.empty();
        }
        if (value.get() > limits.maxTokensCeiling()) {
            throw ApiException.invalid("num_predict", "'num_predict' must be at most " + limits.maxTokensCeiling());
        }
        return OptionalInt.of(value.get());
    }

    /**
     * {@code think}: true/false, or an effort ("low", "medium", "high", "max") which means on and reaches templates
     * that take one ("max" is gpt-oss's "high", as Ollama maps it).
     */
    private static Thinking think(FieldReader f) {
        Optional<JsonNode> think = f.raw("think");
        if (think.isEmpty() || think.get().isNull()) {
            return Thinking.UNSAID;
        }
        JsonNode t = think.get();
        if (t.isBoolean()) {
            return Thinking.of(Optional.of(t.asBoolean()));
        }
        if (t.isTextual()) {
            String level = t.asText().toLowerCase(Locale.ROOT);
            return switch (level) {
                case "low", "medium", "high" -> new Thinking(Optional.of(true), Optional.of(level), Map.of());
                case "max" -> new Thinking(Optional.of(true), Optional.of("high"), Map.of());
                case "true" -> Thinking.of(Optional.of(true));
                case "false", "none" -> Thinking.off();
                default -> throw ApiException.invalid("think", THINK_VALUES);
            };
        }
        throw ApiException.invalid("think", THINK_VALUES);
    }

    private static final String THINK_VALUES = "'think' must be true, false, \"low\", \"medium\", \"high\" or \"max\"";

    /** {@code format}: "json" for any JSON object, or a JSON Schema object; "" or absent for free text. */
    private static Optional<OutputFormat> format(FieldReader f) {
        Optional<JsonNode> format = f.raw("format");
        if (format.isEmpty() || format.get().isTextual() && format.get().asText().isEmpty()) {
            return Optional.empty();
        }
        JsonNode n = format.get();
        if (n.isTextual() && n.asText().equals("json")) {
            return Optional.of(new OutputFormat.JsonObject());
        }
        return Optional.of(Schemas.bare(n, "format"));
    }

    /** Ollama's {@code images}: an array of base64 strings (no data: prefix, though one is accepted). */
    private static List<ChatImage> images(JsonNode node, String where, ImageSources.Intake intake) {
        JsonNode images = node.path("images");
        if (images.isMissingNode() || images.isNull()) {
            return List.of();
        }
        if (!images.isArray()) {
            throw ApiException.invalid(where, "'images' must be an array of base64 strings");
        }
        List<ChatImage> out = new ArrayList<>();
        for (int i = 0; i < images.size(); i++) {
            if (!images.get(i).isTextual()) {
                throw ApiException.invalid(where + "[" + i + "]", "'images' must be an array of base64 strings");
            }
            out.add(intake.base64(images.get(i).asText(), where + "[" + i + "]"));
        }
        return List.copyOf(out);
    }

    /** {@code keep_alive} zero ({@code 0}, {@code "0"}, {@code "0s"}, ...) asks for the model to be unloaded. */
    private static boolean unload(FieldReader f) {
        Optional<JsonNode> keepAlive = f.raw("keep_alive");
        if (keepAlive.isEmpty()) {
            return false;
        }
        JsonNode k = keepAlive.get();
        if (k.isNumber()) {
            return k.asDouble() == 0;
        }
        return k.isTextual() && ZERO_DURATION.matcher(k.asText().strip()).matches();
    }
}
