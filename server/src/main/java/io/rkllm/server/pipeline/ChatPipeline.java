package io.rkllm.server.pipeline;

import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.Role;
import io.rkllm.server.pipeline.request.SamplingOverrides;
import io.rkllm.ffm.ExtendParams;
import io.rkllm.ffm.ModelParams;
import io.rkllm.ffm.SamplingParams;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.LoadedModel;
import io.rkllm.server.engine.ModelLoadException;
import io.rkllm.server.engine.ModelRegistry;
import io.rkllm.server.engine.ModelSpec;
import io.rkllm.server.engine.ModelWorker;
import io.rkllm.server.engine.Priority;
import io.rkllm.server.engine.QueueFullException;
import io.rkllm.server.models.ModelCatalog;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.SamplingDefaults;
import io.rkllm.server.pipeline.output.ScannerOptions;
import io.rkllm.server.pipeline.tasks.TaskAnswers;
import io.rkllm.server.pipeline.tasks.TaskDetector;
import io.rkllm.server.pipeline.tasks.TaskKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * From a validated request to a running generation: resolves the model, decides thinking, limits
 * and sampling, trims the conversation to the context, recognises Open WebUI's background tasks,
 * and queues the run with a planner that finishes the job on the model's worker thread.
 */
public final class ChatPipeline {
    /** Room always left for the answer when checking the context. */
    static final int MIN_OUTPUT_TOKENS = 16;
    /** The estimate is a guess; leave a margin before the runtime's hard limit. */
    static final double ESTIMATE_MARGIN = 1.10;

    private final ModelCatalog catalog;
    private final ModelRegistry registry;
    private final TokenEstimator estimator;
    private final ServerConfig config;
    private final TaskDetector tasks;
    private final ConcurrentMap<String, ModelSpec> specs = new ConcurrentHashMap<>();
    private final long memoryBytes;
    private final RagStep rag;

    public ChatPipeline(ModelCatalog catalog, ModelRegistry registry, TokenEstimator estimator, ServerConfig config) {
        this(catalog, registry, estimator, config, SlotCount.systemMemory(java.nio.file.Path.of("/proc/meminfo")));
    }

    /** @param memoryBytes the machine's memory, for {@code cache.slots: auto} */
    public ChatPipeline(ModelCatalog catalog, ModelRegistry registry, TokenEstimator estimator, ServerConfig config,
                        long memoryBytes) {
        this.catalog = catalog;
        this.registry = registry;
        this.estimator = estimator;
        this.config = config;
        this.tasks = new TaskDetector(config.tasks().prefixes());
        this.memoryBytes = memoryBytes;
        this.rag = new RagStep(config.rag(), estimator, java.time.Clock.systemDefaultZone());
    }

    public ModelCatalog catalog() {
        return catalog;
    }

    public ModelRegistry registry() {
        return registry;
    }

    public TokenEstimator estimator() {
        return estimator;
    }

    /** The state each loaded model gets for the planners: one cache record per slot. */
    public static Object newModelState(ModelSpec spec) {
        return new ModelCacheState(spec.slots());
    }

    public PreparedChat prepare(ChatRequest request) {
        Optional<TaskKind> task = tasks.detect(request);
        ModelDescriptor model = resolve(task.isPresent() && !config.tasks().model().isBlank()
                ? config.tasks().model() : request.model());
        List<PreparedChat.Header> notes = new ArrayList<>();
        int context = model.contextLength();
        int requested = request.maxTokens().orElse(model.sampling().maxTokens().orElse(
                config.generation().defaultMaxTokens()));
        if (task.isPresent()) {
            requested = requested > 0 ? Math.min(requested, config.tasks().maxTokens()) : config.tasks().maxTokens();
        }
        int reserve = Math.min(requested > 0 ? requested : config.generation().reservedOutputTokens(), context / 2);
        ThinkingDecision thinking = task.isPresent() || request.legacyCompletion()
                ? new ThinkingDecision(false, Optional.empty())
                : ThinkingDecision.decide(model, request, config.generation().thinkingDefault());
        RagStep.Applied rag = task.isPresent() || request.legacyCompletion()
                ? new RagStep.Applied(request.messages(), Optional.empty())
                : this.rag.apply(request.messages(), model, reserve);
        if (rag.result().isPresent()) {
            // the question sits inside the retrieved-context template: a /no_think there was seen by the rag step
            thinking = new ThinkingDecision(thinking.enabled() && !rag.thinkingOff(), Optional.empty());
            var r = rag.result().get();
            notes.add(new PreparedChat.Header("X-RKLLM-RAG", "sources=" + r.sources().size() + " passages="
                    + r.sources().stream().mapToInt(x -> x.passages().size()).sum()
                    + (r.nothingRelevant() ? " nothing_relevant" : "") + (r.followUp() ? " follow_up" : "")
                    + (rag.thinkingOff() ? " thinking_off" : "")));
        }
        Conversation conversation = conversation(model, rag.messages(), thinking, rag.question());
        if (request.toolsJson().isPresent() && !model.capabilities().tools()) {
            throw ApiException.invalid("tools", "the model '" + model.id()
                    + "' does not support tool calling (set capabilities.tools in its model.yaml if it does)");
        }
        Optional<PromptFormat> format = PromptFormat.of(model);
        int dropped = 0;
        int estimate = estimateFullPrompt(model, format, conversation, request.toolsJson(), dropped);
        while (fits(estimate, reserve, context) < 0 && dropped < conversation.history().size()) {
            dropped = nextExchangeStart(conversation.history(), dropped);
            estimate = estimateFullPrompt(model, format, conversation, request.toolsJson(), dropped);
        }
        if (fits(estimate, MIN_OUTPUT_TOKENS, context) < 0) {
            throw ApiException.contextLengthExceeded(estimate, context,
                    " (plus room for the answer), even with earlier turns left out. Shorten the message or use a"
                            + " model with a longer context.");
        }
        if (dropped > 0) {
            notes.add(new PreparedChat.Header("X-RKLLM-Context-Trimmed", dropped + " earliest messages left out"));
        }
        int room = context - (int) Math.ceil(estimate * ESTIMATE_MARGIN);
        int maxTokens = requested <= 0 ? 0 : Math.min(requested, room);
        Optional<SamplingParams> sampling = Optional.empty();
        ModelSpec spec = spec(model);
        if (registry.runtime().abi().perRunSampling()) {
            sampling = Optional.of(samplingFor(spec.params().sampling(), model.samplingFor(thinking.enabled()),
                    request.sampling()));
        } else if (!request.sampling().isEmpty()) {
            notes.add(new PreparedChat.Header("X-RKLLM-Sampling",
                    "ignored: runtime 1.2 fixes sampling when the model loads; the model's defaults were used"));
        }
        if (registry.runtime().abi().perRunSampling()
                && (request.sampling().seed().isPresent() || request.sampling().minP().isPresent())) {
            notes.add(new PreparedChat.Header("X-RKLLM-Sampling",
                    "seed and min_p ignored: the RKLLM runtime has no such settings"));
        }
        ScannerOptions scanner = new ScannerOptions(request.stop(), true,
                thinking.enabled() && model.thinkingStartsOpen(), request.toolsJson().isPresent());
        return new PreparedChat(request, model, spec, format, conversation, thinking.enabled(), maxTokens, sampling,
                scanner, estimate, dropped, reserve, task, List.copyOf(notes));
    }

    /** Loads the model if needed and queues the run; errors are API errors for the client. */
    public ChatRun start(PreparedChat chat) {
        Optional<String> derived = derivedTaskAnswer(chat);
        if (derived.isPresent()) {
            return ChatRun.answered(chat, derived.get());
        }
        Priority priority = chat.task().isPresent() ? Priority.BACKGROUND : Priority.INTERACTIVE;
        LoadedModel loaded = null;
        ModelWorker.Reservation place = null;
        for (int attempt = 0; place == null; attempt++) {
            try {
                loaded = registry.acquire(chat.spec());
            } catch (ModelLoadException e) {
                throw ApiException.unavailable("model_load_failed", e.getMessage(), 30);
            }
            try {
                place = loaded.worker().reserve(priority);
            } catch (QueueFullException e) {
                throw ApiException.overloaded(429, e.getMessage() + "; retry later", 5);
            } catch (IllegalStateException e) {
                // the model gave way to another one between acquire and reserve: acquire again
                if (attempt == 2) {
                    throw ApiException.unavailable("model_unloading", e.getMessage(), 2);
                }
            }
        }
        ConversationPlanner planner = new ConversationPlanner(chat, loaded.state(ModelCacheState.class), estimator,
                config.cache().enabled(), config.cache().verify());
        ModelWorker.Reservation reserved = place;
        // the work is queued when the route first reads the run, after it committed its response
        return new ChatRun(chat, new ChatRun.Submission(() -> reserved.submit(planner, chat.maxTokens()),
                reserved::release),
                planner::accounting, config.timeouts(), config.queue().waitTimeout());
    }

    /** A task configured to be answered without inference gets its answer here. */
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

    ModelDescriptor resolve(String name) {
        if (name.isBlank()) {
            List<ModelDescriptor> all = catalog.all();
            if (all.size() == 1) {
                return all.getFirst();
            }
            Optional<ModelDescriptor> loaded = registry.loadedModels().stream().findFirst()
                    .flatMap(m -> catalog.resolve(m.spec().id()));
            return loaded.orElseThrow(() -> ApiException.invalid("model", "'model' is required: one of "
                    + catalog.all().stream().map(ModelDescriptor::id).toList()));
        }
        return catalog.resolve(name).orElseThrow(() -> {
            List<String> candidates = catalog.candidates(name);
            String detail = candidates.isEmpty() ? ". Available: " + catalog.all().stream()
                    .map(ModelDescriptor::id).toList() : ". Did you mean one of " + candidates + "?";
            return ApiException.modelNotFound(name, detail);
        });
    }

    /** The engine's view of a model: its file and init parameters (sampling fixed here on runtime 1.2). */
    public ModelSpec spec(ModelDescriptor model) {
        return specs.computeIfAbsent(model.id(), id -> {
            ModelParams defaults = registry.runtime().defaultParams();
            SamplingParams sampling = samplingFor(defaults.sampling(), model.sampling(),
                    SamplingOverrides.NONE);
            ModelParams params = defaults.withModelPath(model.file()).withMaxContextLen(model.contextLength())
                    .withMaxNewTokens(model.contextLength()).withNKeep(-1).withSampling(sampling)
                    .withExtend(defaults.extend().nBatch() > 0 ? defaults.extend() : ExtendParams.DEFAULT);
            return new ModelSpec(id, params, SlotCount.resolve(config.cache().slots(), model.sizeBytes(),
                    memoryBytes));
        });
    }

    private Conversation conversation(ModelDescriptor model, List<ChatMessage> messages, ThinkingDecision thinking,
                                      Optional<String> rewrittenQuestion) {
        StringBuilder system = new StringBuilder();
        List<ChatMessage> turns = new ArrayList<>();
        for (ChatMessage m : messages) {
            if (m.role() == Role.SYSTEM && turns.isEmpty()) {
                if (!system.isEmpty()) {
                    system.append("\n\n");
                }
                system.append(m.content());
            } else if (m.role() == Role.ASSISTANT) {
                turns.add(new ChatMessage(Role.ASSISTANT, MessageKeys.assistantText(m.content()), m.toolCalls(),
                        m.toolCallId()));
            } else if (m.role() == Role.USER) {
                turns.add(new ChatMessage(Role.USER, MessageKeys.userText(m.content()), List.of(), Optional.empty()));
            } else {
                turns.add(m);
            }
        }
        int firstNew = turns.size();
        while (firstNew > 0 && (turns.get(firstNew - 1).role() == Role.USER
                || turns.get(firstNew - 1).role() == Role.TOOL)) {
            firstNew--;
        }
        if (firstNew == turns.size()) {
            throw ApiException.invalid("messages", turns.isEmpty()
                    ? "'messages' needs at least one user message"
                    : "the last message must be from the user or a tool, not the " + turns.getLast().role()
                            .name().toLowerCase(java.util.Locale.ROOT));
        }
        List<ChatMessage> fresh = new ArrayList<>(turns.subList(firstNew, turns.size()));
        ChatMessage last = fresh.getLast();
        if (last.role() == Role.USER && thinking.strippedPrompt().isPresent()) {
            fresh.set(fresh.size() - 1, new ChatMessage(Role.USER, thinking.strippedPrompt().get(), List.of(),
                    Optional.empty()));
        }
        String systemPrompt = system.isEmpty() ? model.defaultSystemPrompt().orElse("") : system.toString();
        List<String> keys = new ArrayList<>(MessageKeys.keys(fresh));
        rewrittenQuestion.ifPresent(q -> keys.set(keys.size() - 1,
                MessageKeys.key(new ChatMessage(Role.USER, MessageKeys.userText(q), List.of(), Optional.empty()))));
        return new Conversation(systemPrompt, turns.subList(0, firstNew), fresh, keys);
    }

    /** The prompt estimate of a full resend with the first {@code dropped} history messages left out. */
    private int estimateFullPrompt(ModelDescriptor model, Optional<PromptFormat> format, Conversation c,
                                   Optional<String> tools, int dropped) {
        String template = format.map(f -> f.template(c.systemPrompt(), true))
                .map(t -> t.systemPrompt() + t.promptPrefix() + t.promptPostfix()).orElse(c.systemPrompt());
        Conversation trimmed = c.withoutFirst(dropped);
        return estimator.estimate(model.id(), template + tools.orElse("") + PromptFlattener.flatten(trimmed));
    }

    /** Negative when the prompt and the reserve do not fit the context. */
    private static int fits(int estimate, int reserve, int context) {
        return context - (int) Math.ceil(estimate * ESTIMATE_MARGIN) - reserve;
    }

    /** Trimming drops whole exchanges: the kept history starts at a user message. */
    private static int nextExchangeStart(List<ChatMessage> history, int from) {
        int i = from + 1;
        while (i < history.size() && history.get(i).role() != Role.USER) {
            i++;
        }
        return i;
    }

    static SamplingParams samplingFor(SamplingParams base, SamplingDefaults model, SamplingOverrides request) {
        SamplingParams s = base;
        s = s.withTemperature((float) request.temperature().orElse(model.temperature().orElse(s.temperature())));
        s = s.withTopP((float) request.topP().orElse(model.topP().orElse(s.topP())));
        s = s.withTopK(request.topK().orElse(model.topK().orElse(s.topK())));
        s = s.withRepeatPenalty((float) request.repeatPenalty().orElse(
                model.repeatPenalty().orElse(s.repeatPenalty())));
        s = s.withPresencePenalty((float) request.presencePenalty().orElse(
                model.presencePenalty().orElse(s.presencePenalty())));
        s = s.withFrequencyPenalty((float) request.frequencyPenalty().orElse(
                model.frequencyPenalty().orElse(s.frequencyPenalty())));
        return s;
    }
}
