package io.rkllm.server.pipeline;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.LoadedModel;
import io.rkllm.server.engine.Priority;
import io.rkllm.server.engine.contract.cache.CacheContents;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.ReasoningBudget;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.output.OfferedTools;
import io.rkllm.server.pipeline.output.ScannerOptions;
import io.rkllm.server.pipeline.output.dialect.Dialect;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.RawPrompt;
import io.rkllm.server.pipeline.request.SamplingOverrides;
import io.rkllm.server.pipeline.request.Role;
import io.rkllm.server.pipeline.request.ToolCallRecord;
import io.rkllm.server.pipeline.tasks.TaskAnswers;
import io.rkllm.server.pipeline.tasks.TaskDetector;
import io.rkllm.server.pipeline.tasks.TaskKind;
import io.rkllm.server.pipeline.vision.ImageDecoder;
import io.rkllm.server.template.TemplateSwitches;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * From a validated request to a reserved run: {@link #prepare} resolves the model, decides thinking, limits and
 * sampling, fits the conversation to the context and recognises Open WebUI's background tasks (every failure a
 * client can cause is raised here, before anything is written); {@link #reserve} loads the model and takes a
 * place in its queue, returning the run the route starts when it is ready to write.
 */
public final class ChatPipeline {
    /** Tokens kept beside a raw prompt cut to fit: a BOS token and the fill-in-the-middle markers. */
    private static final int RAW_MARGIN = 16;
    private final ModelService models;
    private final TokenEstimator estimator;
    private final ServerConfig config;
    private final TaskDetector tasks;
    private final RagStep rag;
    private final ContextFit contextFit;
    private final VisionStep vision;
    private final ContextFit.CacheView caches;
    private final ModelDialects dialects;

    public ChatPipeline(ModelService models, TokenEstimator estimator, ServerConfig config) {
        this(models, estimator, config, models::cachedConversations);
    }

    /** With {@code caches} telling what the models' KV caches hold (tests give their own). */
    ChatPipeline(ModelService models, TokenEstimator estimator, ServerConfig config, ContextFit.CacheView caches) {
        this.models = models;
        this.estimator = estimator;
        this.config = config;
        this.tasks = new TaskDetector(config.tasks().prefixes());
        this.rag = new RagStep(config.rag(), estimator, Clock.systemDefaultZone());
        this.contextFit = new ContextFit(estimator, config.cache().enabled(), config.cache().trimTo());
        this.caches = caches;
        this.dialects = models.dialects();
        this.vision = new VisionStep(models, new ImageDecoder(new ImageDecoder.Limits(
                config.vision().maxMegapixels() * 1_000_000L, ImageDecoder.Limits.DEFAULT.maxSide())),
                config.vision().textModelImages().equals("refuse"));
    }

    public PreparedChat prepare(ChatRequest offered) {
        ChatRequest request = ToolOrder.canonical(offered);
        Optional<TaskKind> task = tasks.detect(request);
        ModelDescriptor model = models.forRequest(task.isPresent() && !config.tasks().model().isBlank()
                ? config.tasks().model() : request.model());
        List<PreparedChat.Header> notes = new ArrayList<>();
        RuntimeInfo runtime = models.runtime(model);
        // a raw prompt a model reads through its template after all is still read as the client's text alone
        Optional<RawPrompt> asked = request.raw();
        boolean raw = asked.isPresent();
        request = RawPromptCheck.apply(request, model, runtime, notes);
        int context = model.contextLength();
        int requested = request.maxTokens().orElse(model.sampling().maxTokens().orElse(
                config.generation().defaultMaxTokens()));
        if (task.isPresent()) {
            requested = requested > 0 ? Math.min(requested, config.tasks().maxTokens()) : config.tasks().maxTokens();
        }
        // a client's limit is a ceiling, not a reservation: no history is left out to make room for more than the
        // server's own reserve (agents ask for 32000 tokens whatever the model); the answer gets what is left
        int reserved = config.generation().reservedOutputTokens();
        int reserve = Math.min(requested > 0 ? Math.min(requested, reserved) : reserved, context / 2);
        if (raw) {
            // an editor's prefix and suffix cut to the room they have (a fixed room for the answer, whatever this
            // request asks, and a margin kept, and the estimate's own margin, which the fit below applies)
            int room = (int) ((context - ChatPrompt.Raw.CUT_RESERVE - RAW_MARGIN) / ContextFit.ESTIMATE_MARGIN);
            Optional<RawPrompt> cut = InfillFit.cut(asked.get(), room, text -> estimator.estimate(model.id(), text));
            if (cut.isPresent()) {
                int files = asked.get().extra().size() - cut.get().extra().size();
                notes.add(new PreparedChat.Header("X-RKLLM-Context-Trimmed", "the prefix's first "
                        + (asked.get().prefix().length() - cut.get().prefix().length()) + " and the suffix's last "
                        + (asked.get().suffix().orElse("").length() - cut.get().suffix().orElse("").length())
                        + " characters" + (files > 0 ? " and the first " + files + " of the other files' chunks" : "")
                        + " left out to fit the context (by an estimate of their tokens; the model's tokenizer may"
                        + " leave out more)"));
                asked = cut;
                request = request.raw().isPresent() ? request.withRaw(cut.get()) : request;
            }
        }
        // a raw prompt (every legacy completion's) has no thinking, no RAG, no dialect read out of its answer
        boolean plain = task.isPresent() || raw;
        Dialect dialect = dialects.of(model);
        ThinkingDecision thinking = plain ? new ThinkingDecision(false, Optional.empty())
                : ThinkingDecision.decide(model, request, config.generation().thinkingDefault());
        if (!plain && dialect.alwaysReasons() && model.capabilities().thinking() && !thinking.enabled()) {
            // it reasons whatever it is told (gpt-oss): told not to, it reasons as little as it can
            thinking = new ThinkingDecision(true, thinking.strippedPrompt());
            if (request.thinking().on().orElse(true).equals(false)) {
                request = request.withThinking(request.thinking().withEffort("low"));
            }
        }
        RagStep.Applied rag = plain ? new RagStep.Applied(request.messages(), Optional.empty())
                : this.rag.apply(request.messages(), model, reserve);
        if (rag.result().isPresent()) {
            // the question sits inside the retrieved-context template: a /no_think there was seen by the rag step
            thinking = new ThinkingDecision(thinking.enabled() && !rag.thinkingOff(), Optional.empty());
            notes.add(new PreparedChat.Header("X-RKLLM-RAG", rag.summary()));
        }
        // a raw prompt is the client's text to the byte: no system prompt, no switch taken out of it; its suffix
        // is counted with it (an engine that reads the text of a raw prompt reads none: RawPromptCheck)
        Conversation conversation = raw ? new Conversation("", List.of(), List.of(ChatMessage.of(Role.USER,
                asked.get().extraText() + asked.get().prefix() + asked.get().suffix().orElse(""))))
                : ConversationBuilder.of(model, rag.messages(), thinking, rag.question());
        VisionStep.Result pictures = vision.apply(model, conversation, task.isPresent());
        conversation = pictures.conversation();
        notes.addAll(pictures.notes());
        Optional<AnswerContract> contract = task.isPresent() ? Optional.empty() : AnswerContract.of(request);
        // a raw prompt stays the client's text where a grammar holds the answer to its format; a runtime without one
        // learns the format only from the prompt
        if (contract.isPresent() && (!raw || runtime.promptForm() != ChatPrompt.Form.MESSAGES)) {
            conversation = conversation.withGuidance(contract.get().guidance());
        }
        if (request.toolsJson().isPresent() && !model.capabilities().tools()) {
            throw new FailureException(Failure.InvalidRequest.of("tools", "the model '" + model.id()
                    + "' does not support tool calling (set capabilities.tools in its model.yaml if it does)"));
        }
        Optional<PromptFormat> format = raw ? Optional.empty() : PromptFormat.of(model);
        ContextFit.Fit fit = contextFit.fit(model, format, conversation, request.toolsJson(), reserve,
                task.isPresent() ? CacheContents.NOTHING : caches.held(model), pictures.input().tokensPerImage());
        if (!fit.leavesRoomForAnswer(context)) {
            int estimate = fit.promptEstimate();
            throw new FailureException(new Failure.ContextTooLong(estimate, context, raw ? "prompt" : "messages",
                    "This model's maximum context length is " + context + " tokens, but the "
                    + (raw ? "prompt needs about " + estimate + " tokens (plus room for the answer). Shorten it"
                    : "request needs about " + estimate + " tokens (plus room for the answer), even with earlier"
                    + " turns left out. Shorten the message") + " or use a model with a longer context."));
        }
        if (fit.trim().count() > 0 && request.delivery().keepWhole()) {
            int estimate = contextFit.estimate(model, format, conversation, request.toolsJson());
            throw new FailureException(new Failure.ContextTooLong(estimate, context, "messages", "This model's maximum"
                    + " context length is " + context + " tokens, but the conversation needs about " + estimate
                    + " tokens (plus room for the answer), and the request asks that none of it be left out (truncation"
                    + " disabled). Shorten it, allow truncation, or use a model with a longer context."));
        }
        if (fit.trim().count() > 0) {
            notes.add(new PreparedChat.Header("X-RKLLM-Context-Trimmed", fit.trim().note()));
        }
        int room = fit.room(context);
        int maxTokens = requested <= 0 ? 0 : Math.min(requested, room);
        if (maxTokens < requested && task.isEmpty()) {
            notes.add(new PreparedChat.Header(PreparedChat.BUDGET_HEADER, maxTokens + " (max_tokens " + requested
                    + ": the context holds about " + room + " more tokens after the prompt)"));
        }
        Optional<Sampling> sampling = Optional.empty();
        boolean perRun = runtime.perRunSampling();
        if (!request.sampling().logitBias().isEmpty() && !(perRun && runtime.steersEachToken())) {
            // a bias changes what the answer must be: left out, the answer would not be the one asked for
            throw new FailureException(Failure.InvalidRequest.of("logit_bias", "'logit_bias' cannot be applied to"
                    + " the model '" + model.id() + "': the " + runtime.name() + " has no token biases"
                    + " (a GGUF model takes them)"));
        }
        if (perRun) {
            sampling = Optional.of(SamplingChoice.of(models.loadOf(model).sampling(),
                    model.samplingFor(thinking.enabled()), request.sampling()));
            SamplingOverrides wanted = request.sampling();
            if (!runtime.takesMinPAndSeed() && (wanted.seed().isPresent() || wanted.minP().isPresent()
                    || wanted.typicalP().isPresent() || wanted.repeatLastN().isPresent())) {
                notes.add(new PreparedChat.Header("X-RKLLM-Sampling", "seed, min_p, typical_p and repeat_last_n"
                        + " ignored: the " + runtime.name() + " has no such settings"));
            }
        } else if (!request.sampling().isEmpty()) {
            notes.add(new PreparedChat.Header("X-RKLLM-Sampling",
                    "ignored: runtime 1.2 fixes sampling when the model loads; the model's defaults were used"));
        }
        // a request without stop strings gets the model's (an Ollama model's parameters)
        List<String> stop = request.stop().isEmpty() ? model.sampling().stop() : request.stop();
        // what a raw prompt's answer holds is the client's to read: no reasoning or call of a dialect taken out
        ScannerOptions scanner = raw ? new ScannerOptions(stop, false, false, false)
                : ScannerOptions.forAnswer(stop).inSyntax(dialect.syntax())
                .startingInsideThink(dialects.promptOpensReasoning(model, dialect, new TemplateSwitches(
                        thinking.enabled(), request.thinking().effort(), request.thinking().templateArguments())));
        if (request.toolsJson().isPresent()) {
            scanner = scanner.withToolCalls(OfferedTools.of(request.toolsJson().get()));
        }
        Optional<ReasoningBudget> budget = ReasoningBudgets.of(request.thinking().budget(), thinking.enabled(), scanner,
                runtime, notes);
        return new PreparedChat(request, model,
                new PreparedChat.Input(format, conversation, fit.promptEstimate(), fit.trim(), pictures.input()),
                new PreparedChat.Plan(thinking.enabled(), maxTokens, reserve, sampling, scanner, contract, budget),
                task, List.copyOf(notes));
    }

    /**
     * The estimated token count of the whole prompt the model would see for {@code request}: system prompt,
     * template, tools, the conversation (and the guidance of a JSON or tool contract), as one full resend with
     * nothing left out. Nothing is loaded or run; an unknown model is {@link Failure.ModelNotFound}.
     */
    public int promptTokens(ChatRequest request) {
        ModelDescriptor model = models.forRequest(request.model());
        ThinkingDecision thinking = ThinkingDecision.decide(model, request, config.generation().thinkingDefault());
        Conversation conversation = ConversationBuilder.of(model, request.messages(), thinking, Optional.empty());
        Optional<AnswerContract> contract = AnswerContract.of(request);
        if (contract.isPresent()) {
            conversation = conversation.withGuidance(contract.get().guidance());
        }
        return contextFit.estimate(model, PromptFormat.of(model), conversation, request.toolsJson());
    }

    /**
     * The text the model reads for {@code request}, its chat template applied, nothing generated (llama-server's
     * {@code /apply-template}): the model is loaded if it is not. A model whose runtime builds the text itself (an
     * {@code .rkllm} model: the template it was converted with) has none to show.
     *
     * @throws FailureException an invalid request when there is no such text or the template refuses the conversation
     */
    public String promptText(ChatRequest request) {
        PreparedChat chat = prepare(request);
        if (models.runtime(chat.model()).promptForm() != ChatPrompt.Form.MESSAGES) {
            throw new FailureException(Failure.InvalidRequest.of("model", "the model '" + chat.model().id()
                    + "' has no chat template the server applies: its runtime (" + models.runtime(chat.model()).name()
                    + ") builds the prompt from the template the model was converted with"));
        }
        LoadedModel loaded = models.acquire(chat.model());
        ChatPrompt prompt = ChatPrompts.of(chat, estimator, models.runtime(chat.model()).promptForm());
        Optional<String> text;
        try {
            text = loaded.worker().promptText(prompt, config.queue().waitTimeout());
        } catch (IllegalArgumentException e) {
            throw new FailureException(Failure.InvalidRequest.of("messages", e.getMessage()));
        }
        return text.orElseThrow(() -> new FailureException(Failure.InvalidRequest.of("model", "the model '"
                + chat.model().id() + "' has no chat template the server applies: its runtime ("
                + models.runtime(chat.model()).name() + ") builds the prompt from the template the model was"
                + " converted with")));
    }

    /**
     * Loads the model if needed and takes a place in its queue; the run starts when the route calls
     * {@link Run#start()}. A request with a contract (JSON, a tool call) gets a run that checks its answer. A task configured to be answered without inference gets its answer here.
     *
     * @param arrivedNanos when the request arrived ({@link System#nanoTime})
     * @throws FailureException when the model cannot be loaded or its queue is full
     */
    public Run reserve(PreparedChat chat, long arrivedNanos) {
        long reserving = System.nanoTime();
        ChatRun run = reserveRun(chat);
        run.timed(arrivedNanos, System.nanoTime() - reserving);
        return chat.contract().<Run>map(c -> new CheckedRun(this::retry, chat, c, run)).orElse(run);
    }

    /**
     * The second attempt at an answer that did not meet its contract: the same request with the answer given and
     * {@code correction} as a new turn, which the cache policy sends on top of the cached conversation.
     */
    Run retry(PreparedChat first, String reply, List<ToolCallRecord> replyCalls, String correction) {
        List<ChatMessage> messages = new ArrayList<>(first.request().messages());
        messages.add(new ChatMessage(Role.ASSISTANT, reply, replyCalls, Optional.empty()));
        messages.add(ChatMessage.of(Role.USER, correction));
        return reserveRun(prepare(first.request().withMessages(messages)));
    }

    private ChatRun reserveRun(PreparedChat chat) {
        Optional<String> derived = derivedTaskAnswer(chat);
        if (derived.isPresent()) {
            return ChatRun.answered(chat, derived.get());
        }
        Priority priority = chat.task().isPresent() || chat.request().delivery().background() ? Priority.BACKGROUND
                : Priority.INTERACTIVE;
        // the place is taken as the model is chosen: no other load unloads it before the run is queued
        ModelService.Held held = models.held(chat.model(), priority);
        try {
            LoadedModel loaded = held.model();
            if (!chat.vision().isEmpty()) {
                // the encoder is loaded now: its input size is known for certain
                loaded.encoder().ifPresent(e -> chat.vision().fitTo(e,
                        digest -> models.imageEmbeddingCached(chat.model(), digest)));
            }
            ChatPrompt prompt = ChatPrompts.of(chat, estimator, models.runtime(chat.model()).promptForm());
            checkFillInTheMiddle(chat, loaded, prompt);
            return new ChatRun(chat, held.place(), prompt, estimator, config.timeouts(), config.queue().waitTimeout());
        } catch (RuntimeException e) {
            held.place().release();
            throw e;
        }
    }

    /**
     * A suffix the loaded model has no fill-in-the-middle tokens for is refused now, before a stream has begun: the
     * engine renders the prompt (nothing is run) and says so.
     */
    private void checkFillInTheMiddle(PreparedChat chat, LoadedModel loaded, ChatPrompt prompt) {
        if (chat.request().raw().flatMap(RawPrompt::suffix).isEmpty()) {
            return;
        }
        try {
            loaded.worker().promptText(prompt, config.queue().waitTimeout());
        } catch (IllegalArgumentException e) {
            throw new FailureException(Failure.InvalidRequest.of("suffix", e.getMessage()));
        }
    }

    private Optional<String> derivedTaskAnswer(PreparedChat chat) {
        if (chat.task().isEmpty()) {
            return Optional.empty();
        }
        String strategy = switch (chat.task().get()) {
            case TITLE -> config.tasks().title();
            case TAGS -> config.tasks().tags();
            case FOLLOW_UPS -> config.tasks().followUps();
            case QUERIES -> config.tasks().queries();
            case AUTOCOMPLETE -> config.tasks().autocomplete();
            case OTHER -> config.tasks().other();
        };
        if (!strategy.equals("derive")) {
            return Optional.empty();
        }
        return TaskAnswers.derive(chat.task().get(), chat.conversation().newMessages().getLast().content());
    }
}
