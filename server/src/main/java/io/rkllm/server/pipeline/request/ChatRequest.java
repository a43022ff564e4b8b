package io.rkllm.server.pipeline.request;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A validated request, free of JSON: what the pipeline needs to answer it.
 *
 * @param legacyCompletion a /v1/completions request: {@code messages} holds the prompt as one user message
 * @param toolsJson the OpenAI {@code tools} array as JSON, when tools are offered
 * @param thinking an explicit thinking on/off from the request, if any
 * @param conversationKey a client-provided conversation identity (chat id header, user, prompt_cache_key)
 */
public record ChatRequest(String model, List<ChatMessage> messages, boolean stream, boolean includeUsage,
                          OptionalInt maxTokens, SamplingOverrides sampling, List<String> stop,
                          Optional<String> toolsJson, boolean toolChoiceNone, Optional<Boolean> thinking,
                          Optional<String> conversationKey, boolean legacyCompletion) {
}
