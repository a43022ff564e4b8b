package io.rkllm.server.engine.contract;

import io.rkllm.server.engine.contract.cache.Trim;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One chat turn as the engine runs it, in no backend's terms: what the conversation is (so that a backend's cache
 * policy can tell what its slots already hold of it), and the prompt texts the pipeline made of it. The backend
 * chooses what to send: only the new messages on top of a cache that holds the history, or the whole conversation
 * again (RKLLM); a token-level backend renders the whole conversation in the model's own template
 * ({@link #messages()}) and reuses the longest common prefix of tokens (llama.cpp).
 *
 * @param model the model's id, for logs
 * @param conversationKey the conversation's identity (the client's, or its system prompt and first message)
 * @param systemPrompt the request's system prompt
 * @param template the family's chat template for this request (its system prompt and thinking mode in it), empty
 *                 for a model whose runtime keeps the template it was converted with
 * @param systemInText the system prompt is part of {@link #whole()}'s text (the template does not take one)
 * @param tools the tools as a JSON array, for native tool calling
 * @param history the message keys of every earlier message (the pipeline's normalised identities)
 * @param trim which earlier messages the model sees (decided, and told to the client, before the run)
 * @param newKeys the keys the new messages are remembered under (as the client will send them back)
 * @param newPart the new messages alone, to send on top of a cache that holds the history
 * @param whole the whole conversation with the trim applied, as one turn (earlier turns flattened into it)
 * @param task a background task: run beside what a slot holds and dropped afterwards; empty for a chat turn
 * @param thinking the request thinks (a backend switches it through the template, or a flag of its own)
 * @param sampling this run's sampling, when the runtime takes it per run
 * @param reserveTokens room kept for the answer when deciding what fits
 * @param contextLength the model's context
 * @param answerKey the key the cache remembers the generated answer under
 * @param messages the conversation the model sees, message by message, after the system prompt (the trim applied,
 *                 the guidance of a JSON or tool contract in the last message): what a backend that renders the
 *                 model's own multi-turn chat template renders
 * @param answerShape what the answer must be, for a backend that can constrain its sampling to it
 */
public record ChatPrompt(String model, String conversationKey, String systemPrompt, Optional<PromptTemplate> template,
                         boolean systemInText, Optional<String> tools, List<String> history, Trim trim,
                         List<String> newKeys, Part newPart, Part whole, Optional<Task> task, boolean thinking,
                         Optional<Sampling> sampling, int reserveTokens, int contextLength, AnswerKey answerKey,
                         List<Message> messages, Optional<AnswerShape> answerShape) {

    public ChatPrompt {
        Objects.requireNonNull(answerShape, "answerShape");
        Objects.requireNonNull(template, "template");
        Objects.requireNonNull(tools, "tools");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(sampling, "sampling");
        history = List.copyOf(history);
        newKeys = List.copyOf(newKeys);
        messages = List.copyOf(messages);
    }

    /** Without a shape the answer must have. */
    public ChatPrompt(String model, String conversationKey, String systemPrompt, Optional<PromptTemplate> template,
                      boolean systemInText, Optional<String> tools, List<String> history, Trim trim,
                      List<String> newKeys, Part newPart, Part whole, Optional<Task> task, boolean thinking,
                      Optional<Sampling> sampling, int reserveTokens, int contextLength, AnswerKey answerKey,
                      List<Message> messages) {
        this(model, conversationKey, systemPrompt, template, systemInText, tools, history, trim, newKeys, newPart,
                whole, task, thinking, sampling, reserveTokens, contextLength, answerKey, messages, Optional.empty());
    }

    /** Without the messages themselves: for a backend that sends the prompt texts only (RKLLM). */
    public ChatPrompt(String model, String conversationKey, String systemPrompt, Optional<PromptTemplate> template,
                      boolean systemInText, Optional<String> tools, List<String> history, Trim trim,
                      List<String> newKeys, Part newPart, Part whole, Optional<Task> task, boolean thinking,
                      Optional<Sampling> sampling, int reserveTokens, int contextLength, AnswerKey answerKey) {
        this(model, conversationKey, systemPrompt, template, systemInText, tools, history, trim, newKeys, newPart,
                whole, task, thinking, sampling, reserveTokens, contextLength, answerKey, List.of(), Optional.empty());
    }

    /**
     * One message as a chat template renders it.
     *
     * @param role {@code user}, {@code assistant}, {@code tool} or {@code system} (a system note after the first turn)
     * @param content its text (an assistant's without its reasoning)
     * @param toolCalls the assistant's tool calls
     * @param toolCallId the call a tool result answers
     */
    public record Message(String role, String content, List<ToolCall> toolCalls, Optional<String> toolCallId) {
        public Message {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(content, "content");
            toolCalls = List.copyOf(toolCalls);
            Objects.requireNonNull(toolCallId, "toolCallId");
        }

        public static Message of(String role, String content) {
            return new Message(role, content, List.of(), Optional.empty());
        }
    }

    /** A tool call of an earlier assistant message: its arguments as the JSON object text the model wrote. */
    public record ToolCall(String id, String name, String argumentsJson) {
    }

    /**
     * A prompt text and what goes with it.
     *
     * @param role "user", or "tool" for tool results sent on their own
     * @param images the pictures of the text's {@code <image>} placeholders, in order
     * @param estimatedTokens the pipeline's estimate of its tokens, pictures included
     */
    public record Part(String role, String text, List<PromptImage> images, int estimatedTokens) {
        public Part {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(text, "text");
            images = List.copyOf(images);
        }
    }

    /**
     * An Open WebUI background task (a title, tags): the whole request as one text, run without thinking.
     *
     * @param roomNeeded what it needs of the context next to what a slot holds: its text and its answer
     */
    public record Task(String text, int roomNeeded) {
    }

    /** The key of a generated answer, as the cache remembers it. */
    @FunctionalInterface
    public interface AnswerKey {
        /** The answer's key; empty when the answer must not stay in the cache (it is only reasoning). */
        Optional<String> of(String generatedText);
    }
}
