package io.rkllm.server.engine.contract;

import io.rkllm.server.engine.contract.cache.Trim;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One chat turn as the engine runs it, in no backend's terms: the conversation once, in the form its engine takes
 * ({@link Form}, from the engine's {@link RuntimeInfo#promptForm()}), and what the turn is run with. An engine that
 * appends turns to a cache takes {@link Texts} (only the new messages on top of a cache that holds the history, or
 * the whole conversation again: RKLLM); one that renders a chat template takes {@link Messages} and reuses the longest
 * common prefix of tokens (llama.cpp). Both compare the {@link Identity} with what their slots hold.
 *
 * @param model the model's id, for logs
 * @param identity the conversation by message keys: what a cache policy compares with what a slot holds
 * @param setup what a slot is set up with: the system prompt, the family's chat template, the tools
 * @param turns the conversation the model sees, after the system prompt (the trim applied, the guidance of a JSON
 *              or tool contract in the last message), in the engine's form
 * @param task a background task: run beside what a slot holds and dropped afterwards; empty for a chat turn
 * @param settings how the turn runs: thinking, sampling, the answer's shape, the room it needs
 */
public record ChatPrompt(String model, Identity identity, Setup setup, Turns turns, Optional<Task> task,
                         Settings settings) {

    public ChatPrompt {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(setup, "setup");
        Objects.requireNonNull(turns, "turns");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(settings, "settings");
    }

    /** The form of the conversation an engine takes: the pipeline writes only that one. */
    public enum Form {
        /** Message by message ({@link Messages}), for an engine that renders a chat template itself. */
        MESSAGES,
        /** As prompt texts in the family's words ({@link Texts}), for an engine that sends text turns. */
        TEXTS
    }

    /** The conversation in one of the {@link Form}s. */
    public sealed interface Turns permits Messages, Texts {
    }

    /** The conversation message by message, as a chat template renders it. */
    public record Messages(List<Message> list) implements Turns {
        public Messages {
            list = List.copyOf(list);
        }
    }

    /** The messages, for an engine whose {@link RuntimeInfo#promptForm()} is {@link Form#MESSAGES}. */
    public List<Message> messages() {
        if (turns instanceof Messages m) {
            return m.list();
        }
        throw new IllegalStateException("the prompt of " + model + " was written as texts, not messages");
    }

    /** The texts, for an engine whose {@link RuntimeInfo#promptForm()} is {@link Form#TEXTS}. */
    public Texts texts() {
        if (turns instanceof Texts t) {
            return t;
        }
        throw new IllegalStateException("the prompt of " + model + " was written as messages, not texts");
    }

    /**
     * The conversation by message keys (the pipeline's normalised identities), as caches remember conversations.
     *
     * @param conversationKey the conversation's identity (the client's, or its system prompt and first message)
     * @param history the keys of every earlier message
     * @param trim which earlier messages the model sees (decided, and told to the client, before the run)
     * @param newKeys the keys the new messages are remembered under (as the client will send them back)
     * @param answerKey the key the cache remembers the generated answer under
     */
    public record Identity(String conversationKey, List<String> history, Trim trim, List<String> newKeys,
                           AnswerKey answerKey) {
        public Identity {
            Objects.requireNonNull(conversationKey, "conversationKey");
            history = List.copyOf(history);
            Objects.requireNonNull(trim, "trim");
            newKeys = List.copyOf(newKeys);
            Objects.requireNonNull(answerKey, "answerKey");
        }
    }

    /**
     * What a slot is set up with before the conversation.
     *
     * @param systemPrompt the request's system prompt
     * @param template the family's chat template for this request (its system prompt and thinking mode in it), empty
     *                 for a model whose runtime keeps the template it was converted with
     * @param systemInText the template has no place for a system prompt: it goes before the first turn's text (in
     *                     {@link Texts#whole()} it is already there)
     * @param tools the tools as a JSON array, for native tool calling
     * @param raw the prompt is this text as it is, no chat template around it (the template is then
     *            {@link PromptTemplate#NONE}, for a runtime that wraps every prompt in one)
     */
    public record Setup(String systemPrompt, Optional<PromptTemplate> template, boolean systemInText,
                        Optional<String> tools, Optional<Raw> raw) {
        public Setup {
            Objects.requireNonNull(systemPrompt, "systemPrompt");
            Objects.requireNonNull(template, "template");
            Objects.requireNonNull(tools, "tools");
            Objects.requireNonNull(raw, "raw");
        }

        /** A chat's: the conversation in a chat template. */
        public Setup(String systemPrompt, Optional<PromptTemplate> template, boolean systemInText,
                     Optional<String> tools) {
            this(systemPrompt, template, systemInText, tools, Optional.empty());
        }

        /** A raw prompt's: nothing around it. */
        public static Setup forRaw(Raw prompt) {
            return new Setup("", Optional.of(PromptTemplate.NONE), false, Optional.empty(), Optional.of(prompt));
        }
    }

    /**
     * A prompt read as the client wrote it; with a suffix, the model fills in the middle (an engine places the
     * model's fill-in-the-middle tokens around the two, or refuses).
     *
     * @param cutToFit the prefix's start and the suffix's end may be left out to fit the context (an editor's file
     *                 around the cursor), as llama-server's {@code /infill} cuts them by their tokens
     * @param extra chunks of other files the model reads before the prefix (with a suffix only), the first of them
     *              left out first to fit the context
     */
    public record Raw(String prefix, Optional<String> suffix, boolean cutToFit, List<File> extra) {
        /**
         * The most tokens the prefix and the suffix of a prompt cut to fit keep together (half the room when that is
         * less): what llama-server bounds them by (its default batch); the rest of the room is the other files'.
         */
        public static final int FILE_ROOM = 2048;
        /**
         * The answer's room a prompt cut to fit is cut for, whatever the request asks: an editor's warm-up and the
         * completions after it are cut alike, so that each completion finds the warm-up's cache (llama-server's cut
         * depends on no request either). The answer gets at least this much; more when the prompt leaves more.
         */
        public static final int CUT_RESERVE = 256;

        public Raw {
            Objects.requireNonNull(prefix, "prefix");
            Objects.requireNonNull(suffix, "suffix");
            extra = List.copyOf(extra);
        }

        /** Without other files. */
        public Raw(String prefix, Optional<String> suffix, boolean cutToFit) {
            this(prefix, suffix, cutToFit, List.of());
        }

        /** Read whole. */
        public Raw(String prefix, Optional<String> suffix) {
            this(prefix, suffix, false);
        }

        /** What the file of a prompt cut to {@code room} tokens keeps: half, {@link #FILE_ROOM} at most. */
        public static int fileRoom(int room) {
            return Math.min(FILE_ROOM, room / 2);
        }

        /**
         * How many of the other files' chunks, of {@code sizes} tokens each, are left out (the first ones first) for
         * the rest to fit in {@code room}: the same cut by the pipeline's estimate and by the model's tokenizer.
         */
        public static int chunksLeftOut(int[] sizes, int room) {
            long total = 0;
            for (int size : sizes) {
                total += size;
            }
            int from = 0;
            while (from < sizes.length && total > room) {
                total -= sizes[from++];
            }
            return from;
        }

        /** The same with these prefix, suffix and other files (cut to fit). */
        public Raw cut(String keptPrefix, String keptSuffix, List<File> keptExtra) {
            return new Raw(keptPrefix, suffix.map(s -> keptSuffix), cutToFit, keptExtra);
        }
    }

    /** A chunk of another file, read before the prefix of a fill-in-the-middle prompt. */
    public record File(String name, String text) {
        public File {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * The conversation as the pipeline wrote it in text, for a backend that sends text turns.
     *
     * @param newPart the new messages alone, to send on top of a cache that holds the history
     * @param whole the whole conversation with the trim applied, as one turn (earlier turns flattened into it)
     */
    public record Texts(Part newPart, Part whole) implements Turns {
        public Texts {
            Objects.requireNonNull(newPart, "newPart");
            Objects.requireNonNull(whole, "whole");
        }
    }

    /**
     * How the turn runs.
     *
     * @param thinking the request thinks (a backend switches it through the template, or a flag of its own)
     * @param sampling this run's sampling, when the runtime takes it per run
     * @param answerShape what the answer must be, for a backend that can constrain its sampling to it
     * @param reserveTokens room kept for the answer when deciding what fits
     * @param contextLength the model's context
     * @param effort how hard to think, for a template that takes it ({@code low}, {@code medium}, {@code high})
     * @param templateArguments the client's own arguments for the model's chat template
     * @param markers the texts the model's dialect marks its reasoning and calls with: an engine writes them as text
     *                when the model samples them as special tokens (llama.cpp's preserved tokens)
     * @param logprobs when the request asks for its tokens' log probabilities: how many of the likeliest tokens to
     *                 give beside each (0 to {@link TokenLogprob#MAX_TOP}); a backend without them ignores it
     * @param reasoningBudget how far the reasoning may go, for an engine that picks each token itself
     */
    public record Settings(boolean thinking, Optional<Sampling> sampling, Optional<AnswerShape> answerShape,
                           int reserveTokens, int contextLength, Optional<String> effort,
                           Map<String, Object> templateArguments, List<String> markers, OptionalInt logprobs,
                           Optional<ReasoningBudget> reasoningBudget) {
        public Settings {
            Objects.requireNonNull(sampling, "sampling");
            Objects.requireNonNull(answerShape, "answerShape");
            Objects.requireNonNull(effort, "effort");
            templateArguments = Map.copyOf(templateArguments);
            markers = List.copyOf(markers);
            Objects.requireNonNull(logprobs, "logprobs");
            Objects.requireNonNull(reasoningBudget, "reasoningBudget");
        }

        /** No reasoning budget. */
        public Settings(boolean thinking, Optional<Sampling> sampling, Optional<AnswerShape> answerShape,
                        int reserveTokens, int contextLength, Optional<String> effort,
                        Map<String, Object> templateArguments, List<String> markers, OptionalInt logprobs) {
            this(thinking, sampling, answerShape, reserveTokens, contextLength, effort, templateArguments, markers,
                    logprobs, Optional.empty());
        }

        /** No log probabilities. */
        public Settings(boolean thinking, Optional<Sampling> sampling, Optional<AnswerShape> answerShape,
                        int reserveTokens, int contextLength, Optional<String> effort,
                        Map<String, Object> templateArguments, List<String> markers) {
            this(thinking, sampling, answerShape, reserveTokens, contextLength, effort, templateArguments, markers,
                    OptionalInt.empty());
        }

        /** No effort, no template arguments, no markers, no log probabilities. */
        public Settings(boolean thinking, Optional<Sampling> sampling, Optional<AnswerShape> answerShape,
                        int reserveTokens, int contextLength) {
            this(thinking, sampling, answerShape, reserveTokens, contextLength, Optional.empty(), Map.of(), List.of());
        }
    }

    /**
     * One message as a chat template renders it.
     *
     * @param role {@code user}, {@code assistant}, {@code tool} or {@code system} (a system note after the first turn)
     * @param content its text (an assistant's without its reasoning)
     * @param toolCalls the assistant's tool calls
     * @param toolCallId the call a tool result answers
     * @param reasoning an assistant's reasoning, as the client sent it back (templates that write it again get it)
     */
    public record Message(String role, String content, List<ToolCall> toolCalls, Optional<String> toolCallId,
                          Optional<String> reasoning) {
        public Message {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(content, "content");
            toolCalls = List.copyOf(toolCalls);
            Objects.requireNonNull(toolCallId, "toolCallId");
            Objects.requireNonNull(reasoning, "reasoning");
        }

        /** Without reasoning. */
        public Message(String role, String content, List<ToolCall> toolCalls, Optional<String> toolCallId) {
            this(role, content, toolCalls, toolCallId, Optional.empty());
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
