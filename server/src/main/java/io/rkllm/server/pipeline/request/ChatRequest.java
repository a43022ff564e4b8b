package io.rkllm.server.pipeline.request;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A validated request, free of JSON: what the pipeline needs to answer it.
 *
 * @param delivery how the answer is sent
 * @param output what the answer is made with: its limits, sampling, stop strings, structure and thinking
 * @param tools the tools offered and whether the answer must call one
 * @param conversationKey a client-provided conversation identity (chat id header, user, prompt_cache_key)
 * @param raw the prompt as the model reads it, without the chat template ({@code messages} holds its prefix as one
 *            user message, for the estimates that count messages)
 */
public record ChatRequest(String model, List<ChatMessage> messages, Delivery delivery, Output output, ToolUse tools,
                          Optional<String> conversationKey, Optional<RawPrompt> raw) {

    /** A chat: the messages through the model's chat template. */
    public ChatRequest(String model, List<ChatMessage> messages, Delivery delivery, Output output, ToolUse tools,
                       Optional<String> conversationKey) {
        this(model, messages, delivery, output, tools, conversationKey, Optional.empty());
    }

    /** A raw prompt: {@code prompt.prefix()} as the one user message. */
    public static ChatRequest forRawPrompt(String model, RawPrompt prompt, Delivery delivery, Output output,
                                  Optional<String> conversationKey) {
        return new ChatRequest(model, List.of(ChatMessage.of(Role.USER, prompt.prefix())), delivery, output,
                new ToolUse(Optional.empty(), ToolChoice.AUTO, true), conversationKey, Optional.of(prompt));
    }

    /**
     * @param keepWhole the client asked that no message be left out to fit the context (the Responses API's
     *                  {@code truncation: "disabled"}, Ollama's {@code truncate: false}): a conversation too long is
     *                  refused instead of trimmed from its oldest exchanges
     * @param background it waits behind every request and gives way to them (an editor's warm-up), as a background
     *                   task does
     */
    public record Delivery(boolean stream, boolean includeUsage, boolean keepWhole, boolean background) {
        /** A request of its own. */
        public Delivery(boolean stream, boolean includeUsage, boolean keepWhole) {
            this(stream, includeUsage, keepWhole, false);
        }

        /** Fitted to the context as needed. */
        public Delivery(boolean stream, boolean includeUsage) {
            this(stream, includeUsage, false);
        }
    }

    /**
     * @param format the structure the answer's content must have, when the client asked for one
     * @param thinking what the request asks of thinking (on or off, an effort) and of the chat template
     * @param logprobs when the answer's tokens' log probabilities are asked for: how many alternatives each
     */
    public record Output(OptionalInt maxTokens, SamplingOverrides sampling, List<String> stop,
                         Optional<OutputFormat> format, Thinking thinking, OptionalInt logprobs,
                         EditorStops editorStops) {
        /** An answer that ends at its limit, its end token or a stop string. */
        public Output(OptionalInt maxTokens, SamplingOverrides sampling, List<String> stop,
                      Optional<OutputFormat> format, Thinking thinking, OptionalInt logprobs) {
            this(maxTokens, sampling, stop, format, thinking, logprobs, EditorStops.NONE);
        }
    }

    /**
     * @param toolsJson the OpenAI {@code tools} array as JSON, when tools are offered (none with tool_choice none)
     * @param toolChoice whether the answer must call a tool ({@link ToolChoice#AUTO} when tools are optional)
     * @param parallelToolCalls more than one tool call per answer allowed
     */
    public record ToolUse(Optional<String> toolsJson, ToolChoice toolChoice, boolean parallelToolCalls) {
    }

    public boolean stream() {
        return delivery.stream();
    }

    public boolean includeUsage() {
        return delivery.includeUsage();
    }

    public OptionalInt maxTokens() {
        return output.maxTokens();
    }

    public SamplingOverrides sampling() {
        return output.sampling();
    }

    public List<String> stop() {
        return output.stop();
    }

    public Optional<OutputFormat> format() {
        return output.format();
    }

    public Thinking thinking() {
        return output.thinking();
    }

    public Optional<String> toolsJson() {
        return tools.toolsJson();
    }

    public ToolChoice toolChoice() {
        return tools.toolChoice();
    }

    public boolean parallelToolCalls() {
        return tools.parallelToolCalls();
    }

    /** The same request for another model (a client that names none, sent to the one it used before). */
    public ChatRequest withModel(String value) {
        return new ChatRequest(value, messages, delivery, output, tools, conversationKey, raw);
    }

    /** The same request with other messages (a retry that adds turns to the conversation). */
    public ChatRequest withMessages(List<ChatMessage> value) {
        return new ChatRequest(model, List.copyOf(value), delivery, output, tools, conversationKey, raw);
    }

    /** The same request asking other things of thinking. */
    public ChatRequest withThinking(Thinking value) {
        return new ChatRequest(model, messages, delivery, new Output(output.maxTokens(), output.sampling(),
                output.stop(), output.format(), value, output.logprobs(), output.editorStops()), tools,
                conversationKey, raw);
    }

    /** The same request with other tools (the same tools in another order). */
    public ChatRequest withTools(Optional<String> value) {
        return new ChatRequest(model, messages, delivery, output, new ToolUse(value, tools.toolChoice(),
                tools.parallelToolCalls()), conversationKey, raw);
    }

    /** The same request with another raw prompt (one cut to fit the context). */
    public ChatRequest withRaw(RawPrompt value) {
        return new ChatRequest(model, messages, delivery, output, tools, conversationKey, Optional.of(value));
    }

    /** The same request through the model's chat template: for a model that cannot read a prompt as it is. */
    public ChatRequest templated() {
        return new ChatRequest(model, messages, delivery, output, tools, conversationKey);
    }
}
