package io.rkllm.server.http.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.FieldReader;
import io.rkllm.server.api.LogitBiasField;
import io.rkllm.server.api.LogprobsFields;
import io.rkllm.server.api.ThinkingBudgetField;
import io.rkllm.server.api.Schemas;
import io.rkllm.server.api.Tools;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.OutputFormat;
import io.rkllm.server.pipeline.request.RawPrompt;
import io.rkllm.server.pipeline.request.Thinking;
import io.rkllm.server.pipeline.request.ToolChoice;
import io.rkllm.server.pipeline.request.Role;
import io.rkllm.server.pipeline.request.SamplingOverrides;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * OpenAI's chat completion and legacy completion bodies as a {@link ChatRequest}: the shared fields through
 * {@link CommonFields}, and what only these two have (n, stream_options, response_format, tool_choice, thinking
 * switches, the fields refused by name).
 */
public final class ChatRequestParser {
    private final CommonFields common;

    public ChatRequestParser(CommonFields common) {
        this.common = common;
    }

    public ChatRequest parseChat(byte[] body, Optional<String> chatIdHeader) {
        ObjectNode root = common.object(body);
        FieldReader f = new FieldReader(root);
        List<ChatMessage> messages = common.messages(f.array("messages").orElseThrow(
                () -> ApiException.invalid("messages", "'messages' is required: a non-empty array of messages")));
        f.integer("n").ifPresent(n -> {
            if (n != 1) {
                throw ApiException.invalid("n", "only n=1 is supported: the NPU generates one choice at a time");
            }
        });
        refuseWhatCannotBeDone(f);
        Optional<OutputFormat> format = responseFormat(f);
        Optional<String> tools = common.tools(f);
        Optional<ToolChoice> choice = toolChoice(f, tools);
        return new ChatRequest(common.model(f), messages,
                new ChatRequest.Delivery(f.bool("stream").orElse(false), includeUsage(f)),
                new ChatRequest.Output(common.maxTokens(f), sampling(f), common.stop(f), format,
                        thinking(f).withBudget(ThinkingBudgetField.of(f)), LogprobsFields.chat(f)),
                new ChatRequest.ToolUse(choice.isEmpty() ? Optional.empty() : Tools.only(tools, choice.get()),
                        choice.orElse(ToolChoice.AUTO), f.bool("parallel_tool_calls").orElse(true)),
                CommonFields.conversationKey(f, chatIdHeader));
    }

    public ChatRequest parseCompletion(byte[] body) {
        ObjectNode root = common.object(body);
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
        if (f.bool("echo").orElse(false)) {
            throw ApiException.invalid("echo", "'echo' is not supported: the answer does not repeat the prompt");
        }
        f.integer("best_of").ifPresent(n -> {
            if (n != 1) {
                throw ApiException.invalid("best_of", "only best_of=1 is supported");
            }
        });
        // the prompt is the text the model reads, as on OpenAI and llama-server: no chat template around it
        RawPrompt raw = new RawPrompt(prompt, f.string("suffix").filter(s -> !s.isEmpty()));
        return ChatRequest.forRawPrompt(common.model(f), raw,
                new ChatRequest.Delivery(f.bool("stream").orElse(false), includeUsage(f)),
                new ChatRequest.Output(common.maxTokens(f), sampling(f), common.stop(f), responseFormat(f),
                        Thinking.off(), LogprobsFields.completion(f)),
                CommonFields.conversationKey(f, Optional.empty()));
    }

    /** The sampling fields every API shares, and the logit biases OpenAI's chat and completions have. */
    private SamplingOverrides sampling(FieldReader f) {
        return common.sampling(f).withLogitBias(LogitBiasField.of(f));
    }

    private boolean includeUsage(FieldReader f) {
        return f.object("stream_options").map(o -> new FieldReader(o).bool("include_usage").orElse(false))
                .orElse(false);
    }

    /**
     * Thinking and the template's arguments: {@code chat_template_kwargs} (every key reaches the template, as on
     * llama-server; {@code enable_thinking} and {@code reasoning_effort} among them also switch thinking), else
     * {@code reasoning_effort} (none and minimal: off; low, medium, high: on, and the effort for templates that take
     * it), else Ollama's {@code think}.
     */
    private Thinking thinking(FieldReader f) {
        Map<String, Object> kwargs = f.object("chat_template_kwargs").map(TemplateArguments::of).orElse(Map.of());
        Optional<Boolean> on = kwargs.get("enable_thinking") instanceof Boolean b ? Optional.of(b) : Optional.empty();
        Optional<String> effort = f.string("reasoning_effort")
                .or(() -> kwargs.get("reasoning_effort") instanceof String s ? Optional.of(s) : Optional.empty());
        if (effort.isPresent()) {
            String e = effort.get().toLowerCase(Locale.ROOT);
            switch (e) {
                case "none", "minimal" -> {
                    return new Thinking(on.or(() -> Optional.of(false)), Optional.empty(), kwargs);
                }
                case "low", "medium", "high" -> {
                    return new Thinking(on.or(() -> Optional.of(true)), Optional.of(e), kwargs);
                }
                case "xhigh", "max" -> {
                    // above high: the most a template takes (gpt-oss's high)
                    return new Thinking(on.or(() -> Optional.of(true)), Optional.of("high"), kwargs);
                }
                default -> throw ApiException.invalid("reasoning_effort",
                        "'reasoning_effort' must be one of none, minimal, low, medium, high, xhigh, max");
            }
        }
        Optional<JsonNode> think = f.raw("think");
        if (on.isEmpty() && think.isPresent() && think.get().isBoolean()) {
            on = Optional.of(think.get().asBoolean());
        }
        return new Thinking(on, Optional.empty(), kwargs);
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

    /**
     * {@code tool_choice}: empty for "none" (the tools are not offered), else auto, required, or one function
     * (which must be among the tools).
     */
    static Optional<ToolChoice> toolChoice(FieldReader f, Optional<String> tools) {
        return Tools.choice(f, tools, "{\"type\":\"function\",\"function\":{\"name\":...}}");
    }

}
