package io.rkllm.server.pipeline;

import io.rkllm.ffm.ExtendParams;
import io.rkllm.ffm.ModelParams;
import io.rkllm.ffm.SamplingParams;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.Generation;
import io.rkllm.server.engine.LoadedModel;
import io.rkllm.server.engine.ModelLoadException;
import io.rkllm.server.engine.ModelRegistry;
import io.rkllm.server.engine.ModelSpec;
import io.rkllm.server.engine.Priority;
import io.rkllm.server.engine.QueueFullException;
import io.rkllm.server.models.ModelCatalog;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.SamplingDefaults;
import io.rkllm.server.pipeline.output.ScannerOptions;
import io.rkllm.server.pipeline.output.ThinkStripper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * From a validated request to a running generation: resolves the model, decides thinking, limits
 * and sampling, checks the context, and queues the run with a planner that finishes the job on the
 * model's worker thread.
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
    private final ConcurrentMap<String, ModelSpec> specs = new ConcurrentHashMap<>();

    public ChatPipeline(ModelCatalog catalog, ModelRegistry registry, TokenEstimator estimator, ServerConfig config) {
        this.catalog = catalog;
        this.registry = registry;
        this.estimator = estimator;
        this.config = config;
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

    public PreparedChat prepare(ChatRequest request) {
        ModelDescriptor model = resolve(request.model());
        List<PreparedChat.Header> notes = new ArrayList<>();
        ThinkingDecision thinking = ThinkingDecision.decide(model, request, config.generation().thinkingDefault());
        Conversation conversation = conversation(model, request.messages(), thinking);
        if (request.toolsJson().isPresent() && !model.capabilities().tools()) {
            throw ApiException.invalid("tools", "the model '" + model.id()
                    + "' does not support tool calling (set capabilities.tools in its model.yaml if it does)");
        }
        Optional<PromptFormat> format = PromptFormat.of(model);
        int promptEstimate = estimateFullPrompt(model, format, conversation, request.toolsJson());
        int context = model.contextLength();
        int needed = (int) Math.ceil(promptEstimate * ESTIMATE_MARGIN) + MIN_OUTPUT_TOKENS;
        if (needed > context) {
            throw ApiException.contextLengthExceeded(promptEstimate, context,
                    " (plus room for the answer). Shorten the conversation or use a model with a longer context.");
        }
        int room = context - (int) Math.ceil(promptEstimate * ESTIMATE_MARGIN);
        int maxTokens = request.maxTokens().orElse(model.sampling().maxTokens().orElse(
                config.generation().defaultMaxTokens()));
        if (maxTokens <= 0 || maxTokens > room) {
            maxTokens = maxTokens <= 0 ? 0 : room;
        }
        Optional<SamplingParams> sampling = Optional.empty();
        ModelSpec spec = spec(model);
        if (registry.runtime().abi().perRunSampling()) {
            sampling = Optional.of(samplingFor(spec.params().sampling(), model.samplingFor(thinking.enabled()),
                    request.sampling()));
        } else if (!request.sampling().isEmpty()) {
            notes.add(new PreparedChat.Header("X-RKLLM-Sampling",
                    "ignored: runtime 1.2 fixes sampling when the model loads; the model's defaults were used"));
        }
        ScannerOptions scanner = new ScannerOptions(request.stop(), true,
                thinking.enabled() && model.thinkingStartsOpen(), request.toolsJson().isPresent());
        return new PreparedChat(request, model, spec, format, conversation, thinking.enabled(), maxTokens, sampling,
                scanner, promptEstimate, List.copyOf(notes));
    }

    /** Loads the model if needed and queues the run; errors are API errors for the client. */
    public ChatRun start(PreparedChat chat, Priority priority) {
        LoadedModel loaded;
        try {
            loaded = registry.acquire(chat.spec());
        } catch (ModelLoadException e) {
            throw ApiException.unavailable("model_load_failed", e.getMessage(), 30);
        }
        FullPromptPlanner planner = new FullPromptPlanner(chat, loaded.state(HandleState.class), estimator);
        Generation generation;
        try {
            generation = loaded.worker().submit(planner, priority, chat.maxTokens());
        } catch (QueueFullException e) {
            throw ApiException.overloaded(429, e.getMessage() + "; retry later", 5);
        } catch (IllegalStateException e) {
            throw ApiException.unavailable("model_unloading", e.getMessage(), 2);
        }
        return new ChatRun(chat, generation, planner::accounting, config.timeouts(), config.queue().waitTimeout());
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
            return new ModelSpec(id, params);
        });
    }

    private Conversation conversation(ModelDescriptor model, List<ChatMessage> messages, ThinkingDecision thinking) {
        StringBuilder system = new StringBuilder();
        List<ChatMessage> turns = new ArrayList<>();
        for (ChatMessage m : messages) {
            if (m.role() == Role.SYSTEM && turns.isEmpty()) {
                if (!system.isEmpty()) {
                    system.append("\n\n");
                }
                system.append(m.content());
            } else if (m.role() == Role.ASSISTANT) {
                turns.add(new ChatMessage(Role.ASSISTANT, ThinkStripper.strip(m.content()), m.toolCalls(),
                        m.toolCallId()));
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
        return new Conversation(systemPrompt, turns.subList(0, firstNew), fresh);
    }

    private int estimateFullPrompt(ModelDescriptor model, Optional<PromptFormat> format, Conversation c,
                                   Optional<String> tools) {
        String template = format.map(f -> f.template(c.systemPrompt(), true))
                .map(t -> t.systemPrompt() + t.promptPrefix() + t.promptPostfix()).orElse(c.systemPrompt());
        return estimator.estimate(model.id(), template + tools.orElse("") + PromptFlattener.flatten(c));
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
