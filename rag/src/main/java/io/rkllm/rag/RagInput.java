package io.rkllm.rag;

import java.time.LocalDate;
import java.util.List;
import java.util.Objects;

/**
 * Everything the builder needs for one chat request.
 *
 * @param messages           the request's messages in order; retrieved context may sit in the system
 *                           message or in the last user message
 * @param previousAnswer     the last assistant answer of the conversation, or null (taken from
 *                           {@code messages} when null and an assistant message precedes the last user one)
 * @param contextLength      the model's context window in tokens
 * @param reservedOutput     tokens kept free for the answer
 * @param conversationTokens tokens used by the rest of the prompt: earlier turns and the chat template,
 *                           NOT counting the system message and the last user message (the builder
 *                           rewrites and counts those itself)
 * @param tokens             the server's token counter
 * @param today              today's date from the server clock
 * @param options            settings
 */
public record RagInput(List<RagMessage> messages, String previousAnswer, int contextLength, int reservedOutput,
                       int conversationTokens, TokenCounter tokens, LocalDate today, RagOptions options) {
    public RagInput {
        messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
        if (contextLength <= 0) {
            throw new IllegalArgumentException("contextLength must be > 0: " + contextLength);
        }
        reservedOutput = Math.max(0, reservedOutput);
        conversationTokens = Math.max(0, conversationTokens);
        tokens = tokens == null ? TokenCounter.approximate() : tokens;
        today = today == null ? LocalDate.now() : today;
        options = options == null ? RagOptions.defaults() : options;
    }

    /** The common case: default options, approximate token counts. */
    public static RagInput of(List<RagMessage> messages, int contextLength, int reservedOutput, LocalDate today) {
        return new RagInput(messages, null, contextLength, reservedOutput, 0, TokenCounter.approximate(), today,
                RagOptions.defaults());
    }

    public RagInput withOptions(RagOptions o) {
        return new RagInput(messages, previousAnswer, contextLength, reservedOutput, conversationTokens, tokens,
                today, o);
    }

    public RagInput withTokens(TokenCounter t) {
        return new RagInput(messages, previousAnswer, contextLength, reservedOutput, conversationTokens, t,
                today, options);
    }

    public RagInput withPreviousAnswer(String answer) {
        return new RagInput(messages, answer, contextLength, reservedOutput, conversationTokens, tokens,
                today, options);
    }

    public RagInput withConversationTokens(int n) {
        return new RagInput(messages, previousAnswer, contextLength, reservedOutput, n, tokens, today, options);
    }
}
