package io.rkllm.server.pipeline.request;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A validated request, free of JSON: what the pipeline needs to answer it.
 *
 * @param legacyCompletion a /v1/completions request: {@code messages} holds the prompt as one user message
 * @param toolsJson the OpenAI {@code tools} array as JSON, when tools are offered (none with tool_choice none)
 * @param toolChoice whether the answer must call a tool ({@link ToolChoice#AUTO} when tools are optional)
 * @param parallelToolCalls more than one tool call per answer allowed
 * @param format the structure the answer's content must have, when the client asked for one
 * @param thinking what the request asks of thinking (on or off, an effort) and of the chat template
 * @param conversationKey a client-provided conversation identity (chat id header, user, prompt_cache_key)
 */
public record ChatRequest(String model, List<ChatMessage> messages, boolean stream, boolean includeUsage,
                          OptionalInt maxTokens, SamplingOverrides sampling, List<String> stop,
                          Optional<String> toolsJson, ToolChoice toolChoice, boolean parallelToolCalls,
                          Optional<OutputFormat> format, Thinking thinking, Optional<String> conversationKey,
                          boolean legacyCompletion) {

    /** The same request with other messages (a retry that adds turns to the conversation). */
    public ChatRequest withMessages(List<ChatMessage> value) {
        return new ChatRequest(model, List.copyOf(value), stream, includeUsage, maxTokens, sampling, stop, toolsJson,
                toolChoice, parallelToolCalls, format, thinking, conversationKey, legacyCompletion);
    }

    /** The same request asking other things of thinking. */
    public ChatRequest withThinking(Thinking value) {
        return new ChatRequest(model, messages, stream, includeUsage, maxTokens, sampling, stop, toolsJson, toolChoice,
                parallelToolCalls, format, value, conversationKey, legacyCompletion);
    }

    /** The same request with other tools (the same tools in another order). */
    public ChatRequest withTools(Optional<String> value) {
        return new ChatRequest(model, messages, stream, includeUsage, maxTokens, sampling, stop, value, toolChoice,
                parallelToolCalls, format, thinking, conversationKey, legacyCompletion);
    }
}
