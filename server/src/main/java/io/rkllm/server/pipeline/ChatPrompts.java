package io.rkllm.server.pipeline;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.engine.contract.AnswerShape;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.engine.contract.PromptImage;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.ToolCallIds;
import io.rkllm.server.pipeline.request.ChatMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A prepared chat as the engine runs it ({@link ChatPrompt}): what the conversation is, by message keys, and its
 * prompt texts (the new messages alone, the whole trimmed conversation as one turn, a task's text), with the
 * estimates a backend's cache policy weighs. Made on the request's thread; the backend decides on its worker what
 * of it to send.
 */
final class ChatPrompts {
    /** Room a background task's prompt gets beyond its estimate, and the least it leaves for the answer. */
    private static final int TASK_MARGIN = 16;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, Object>> SCHEMA_VALUES = new TypeReference<>() {
    };

    private ChatPrompts() {
    }

    /** The prompt of {@code chat} with its conversation in {@code form}, the one its engine takes. */
    static ChatPrompt of(PreparedChat chat, TokenEstimator estimator, ChatPrompt.Form form) {
        Conversation c = chat.conversation();
        String id = chat.model().id();
        String system = c.systemPrompt();
        Optional<PromptTemplate> template = chat.format()
                .map(f -> f.template(f.acceptsSystemPrompt() ? system : "", !chat.thinking()));
        boolean systemInText = chat.format().isEmpty() || !chat.format().get().acceptsSystemPrompt();
        Conversation trimmed = c.trimmed(chat.trim());
        ChatPrompt.Turns turns = switch (form) {
            case MESSAGES -> new ChatPrompt.Messages(messages(trimmed, chat.scanner().syntax().callIds()));
            case TEXTS -> texts(chat, estimator, systemInText);
        };

        Optional<ChatPrompt.Task> task = chat.task().map(kind -> {
            String prompt = PromptFlattener.flatten(c);
            return new ChatPrompt.Task(prompt, estimator.estimate(id, prompt) + TASK_MARGIN
                    + Math.max(chat.maxTokens(), TASK_MARGIN));
        });
        ChatPrompt.Identity identity = new ChatPrompt.Identity(conversationKey(chat), MessageKeys.keys(c.history()),
                chat.trim(), c.newMessageKeys(), generated -> {
                    String key = MessageKeys.generated(generated, chat.scanner());
                    return IncompleteAnswer.isReasoningOnly(key, generated) ? Optional.empty() : Optional.of(key);
                });
        ChatPrompt.Setup setup = chat.request().raw()
                .map(raw -> ChatPrompt.Setup.forRaw(new ChatPrompt.Raw(raw.prefix(), raw.suffix(), raw.cutToFit(),
                        raw.extra().stream().map(f -> new ChatPrompt.File(f.filename(), f.text())).toList())))
                .orElseGet(() -> new ChatPrompt.Setup(system, template, systemInText, chat.request().toolsJson()));
        return new ChatPrompt(id, identity, setup, turns, task,
                new ChatPrompt.Settings(chat.thinking(), chat.sampling(), answerShape(chat), chat.reserveTokens(),
                        chat.model().contextLength(), chat.request().thinking().effort(),
                        chat.request().thinking().templateArguments(), chat.scanner().syntax().markers(),
                        chat.request().output().logprobs(), chat.plan().reasoningBudget()));
    }

    /** The conversation as prompt texts: the new messages alone, and the whole with earlier turns flattened. */
    private static ChatPrompt.Texts texts(PreparedChat chat, TokenEstimator estimator, boolean systemInText) {
        Conversation c = chat.conversation();
        String id = chat.model().id();
        String system = c.systemPrompt();
        String incremental = PromptFlattener.incremental(c.newMessages());
        ChatPrompt.Part newPart = new ChatPrompt.Part(c.newRole(), incremental,
                chat.vision().runImages(c.newMessages()), estimator.estimate(id, incremental)
                + VisionInput.count(c.newMessages()) * chat.vision().tokensPerImage());

        Conversation trimmed = c.trimmed(chat.trim());
        String text = (systemInText && !system.isEmpty() ? system + "\n\n" : "") + PromptFlattener.flatten(trimmed);
        List<PromptImage> images = chat.vision().runImages(concat(trimmed.history(), trimmed.newMessages()));
        ChatPrompt.Part whole = new ChatPrompt.Part("user", text, images, estimator.estimate(id, text)
                + images.size() * chat.vision().tokensPerImage());
        return new ChatPrompt.Texts(newPart, whole);
    }

    /**
     * The JSON a contract asks for, as a backend may constrain its sampling to it. A thinking request reasons
     * freely first: the constraint starts after the closing tag the output scanner reads reasoning up to.
     */
    static Optional<AnswerShape> answerShape(PreparedChat chat) {
        Optional<String> after = chat.scanner().syntax().answerAfter(chat.thinking());
        return chat.contract().flatMap(contract -> {
            if (!(contract instanceof AnswerContract.Json json)) {
                return Optional.empty();
            }
            if (json.schema().isEmpty()) {
                return Optional.of(new AnswerShape.JsonObject(after));
            }
            // a schema of `true` or `false` (anything, nothing) has no shape to constrain to: checked afterwards
            return schemaValues(json.schemaJson()).map(schema -> new AnswerShape.JsonSchema(schema, after));
        });
    }

    /** The schema as plain Java values, in its properties' order; empty unless it is a JSON object. */
    private static Optional<Map<String, Object>> schemaValues(String schemaJson) {
        try {
            return Optional.of(JSON.readValue(schemaJson, SCHEMA_VALUES));
        } catch (JacksonException e) {
            return Optional.empty();
        }
    }

    /**
     * The trimmed conversation message by message, for a backend that renders the model's own template; the ids of
     * calls and results in the form the model's family writes them (Mistral's templates refuse any other).
     */
    static List<ChatPrompt.Message> messages(Conversation trimmed, Syntax.CallIds ids) {
        List<ChatPrompt.Message> out = new ArrayList<>();
        for (ChatMessage m : concat(trimmed.history(), trimmed.newMessages())) {
            out.add(new ChatPrompt.Message(m.role().name().toLowerCase(Locale.ROOT), m.content(),
                    m.toolCalls().stream().map(c -> new ChatPrompt.ToolCall(ToolCallIds.inForm(c.id(), ids), c.name(),
                            c.argumentsJson())).toList(),
                    m.toolCallId().map(id -> ToolCallIds.inForm(id, ids)), m.reasoning()));
        }
        return out;
    }

    /**
     * The conversation's identity: the client's (Open WebUI's chat id header, {@code prompt_cache_key},
     * {@code user}) when given, else the system prompt and first message, which an edit further down or a
     * regenerated answer leaves unchanged.
     */
    static String conversationKey(PreparedChat chat) {
        Conversation c = chat.conversation();
        ChatMessage first = c.history().isEmpty() ? c.newMessages().getFirst() : c.history().getFirst();
        String prefix = "prefix:" + MessageKeys.digest(List.of(c.systemPrompt(), MessageKeys.key(first)));
        Optional<String> given = chat.request().conversationKey();
        if (given.isEmpty()) {
            return prefix;
        }
        // OpenAI's `user` names a person, not a chat: it only narrows the prefix
        return given.get().startsWith("user:") ? given.get() + "|" + prefix : given.get();
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a.size() + b.size());
        all.addAll(a);
        all.addAll(b);
        return all;
    }
}
