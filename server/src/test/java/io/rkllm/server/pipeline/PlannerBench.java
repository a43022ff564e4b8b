package io.rkllm.server.pipeline;

import io.rkllm.server.backend.rkllm.ConversationCache;
import io.rkllm.server.backend.rkllm.RkllmBackend;
import io.rkllm.server.backend.rkllm.RkllmCachePolicy;
import io.rkllm.server.backend.rkllm.RkllmProvider;
import io.rkllm.server.backend.rkllm.RunOutcome;
import io.rkllm.server.backend.rkllm.ThinkingControl;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.Backends;
import io.rkllm.server.engine.ModelListener;
import io.rkllm.server.engine.ModelRegistry;
import io.rkllm.server.engine.RegistrySettings;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.Backend;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.TestDiscovery;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.Role;
import io.rkllm.server.pipeline.request.SamplingOverrides;
import io.rkllm.server.pipeline.request.ToolCallRecord;
import io.rkllm.server.pipeline.request.ToolChoice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.IntStream;

/**
 * The cache policy on its own: the real pipeline prepares each request (model, conversation, trimming) and the
 * real planner decides on slots in Java ({@link FakeSlot}); no server, no native code. A run is simulated by the
 * test: it says how many tokens were generated, the slot grows, the planner records the result.
 */
final class PlannerBench implements AutoCloseable {
    static final String MODEL = "qwen2.5-0.5b-instruct";

    final List<FakeSlot> slots;
    final ConversationCache state;
    private final ChatPipeline pipeline;
    private final TokenEstimator estimator = new TokenEstimator();
    private final ServerConfig config;
    private final ModelRegistry registry;

    /** A bench with {@code slots} slots for a model of {@code contextLength}, and configuration {@code flags}. */
    PlannerBench(Path dir, int slotCount, int contextLength, Map<String, String> flags) {
        try {
            Path folder = Files.createDirectories(dir.resolve("models").resolve(MODEL));
            Files.writeString(folder.resolve(MODEL + ".rkllm"), "not a real model");
            Files.writeString(folder.resolve("model.yaml"), "context_length: " + contextLength + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> all = new LinkedHashMap<>(flags);
        all.put("models.dir", dir.resolve("models").toString());
        all.put("cache.slots", Integer.toString(slotCount));
        config = new ConfigLoader(dir).load(Optional.empty(), Map.of(), all).config();
        DiscoveryResult discovery = TestDiscovery.standard().discover(config.models().dir());
        registry = new ModelRegistry(Backends.of(RkllmProvider.NAME, new DescribingBackend()), new RegistrySettings(1, 8, Duration.ZERO,
                Duration.ofSeconds(1)), Clock.systemUTC(), new ModelListener() {
                });
        slots = IntStream.range(0, slotCount).mapToObj(i -> new FakeSlot()).toList();
        RkllmBackend.Settings settings = RkllmBackend.Settings.of(config);
        state = new ConversationCache(slotCount, new RkllmCachePolicy(settings.cache()),
                new ThinkingControl(settings.thinkingFlag(), "1.3"), "qwen2.5");
        pipeline = new ChatPipeline(new ModelService(discovery.catalog(), registry, config.cache().slots(),
                16L << 30), estimator, config, model -> state.held());
    }

    /** One request's decision and its run: what the planner sent, and on which slot. */
    record Turn(PreparedChat chat, ConversationCache.Planned plan, List<String> calls, int prefilled) {
        /** What a perfect cache would prefill: the new messages only (and the system prompt on an empty slot). */
        int minimum() {
            return (plan.reusedTokens() == 0 ? FakeSlot.SYSTEM_TOKENS : 0)
                    + Math.max(1, PromptFlattener.incremental(chat.conversation().newMessages()).length() / 4);
        }

        String prompt() {
            return plan.request().prompt();
        }

        int slot() {
            return plan.slot();
        }
    }

    /** Prepares {@code request}, plans it on the slots, "runs" it generating {@code answer}, records the result. */
    Turn turn(ChatRequest request, String answer) {
        return turn(request, answer, false);
    }

    Turn turn(ChatRequest request, String answer, boolean aborted) {
        PreparedChat chat = pipeline.prepare(request);
        slots.forEach(s -> s.calls.clear());
        ConversationCache.Planned plan = state.plan(ChatPrompts.of(chat, estimator, ChatPrompt.Form.TEXTS), slots);
        FakeSlot slot = slots.get(plan.slot());
        List<String> calls = new ArrayList<>(slot.calls);
        int prefilled = slot.prefill(plan.request());
        int generated = Math.max(1, answer.length() / 4);
        slot.ran(plan, prefilled, generated);
        state.finished(plan, new RunOutcome.Finished(new GenerationStats(1, prefilled, 1, generated), aborted), answer)
                .ifPresent(text -> estimator.calibrate(MODEL, text, prefilled));
        return new Turn(chat, plan, calls, prefilled);
    }

    static ChatRequest request(ChatMessage... messages) {
        return request(Optional.empty(), messages);
    }

    static ChatRequest request(Optional<String> conversationKey, ChatMessage... messages) {
        return request(conversationKey, Optional.empty(), List.of(messages));
    }

    static ChatRequest request(Optional<String> conversationKey, Optional<String> tools, List<ChatMessage> messages) {
        return new ChatRequest(MODEL, List.copyOf(messages),
                new ChatRequest.Delivery(false, false),
                new ChatRequest.Output(OptionalInt.empty(), SamplingOverrides.NONE, List.of(), Optional.empty(),
                        io.rkllm.server.pipeline.request.Thinking.UNSAID, OptionalInt.empty()),
                new ChatRequest.ToolUse(tools, ToolChoice.AUTO, true),
                conversationKey);
    }

    /** A client's copy of one conversation, as Open WebUI keeps it: every turn sends all of it. */
    final class Chat {
        final List<ChatMessage> messages = new ArrayList<>();
        private final Optional<String> key;
        private final Optional<String> tools;

        Chat(String system, Optional<String> key, Optional<String> tools) {
            this.key = key;
            this.tools = tools;
            messages.add(system(system));
        }

        /** Sends a user message; the model answers {@code answer}, which goes into the history. */
        Turn say(String text, String answer) {
            messages.add(user(text));
            return answer(answer);
        }

        /** Sends the client's messages as they are; the answer goes into the history as the client shows it. */
        Turn answer(String answer) {
            Turn t = turn(request(key, tools, messages), answer);
            messages.add(assistant(MessageKeys.assistantText(answer)));
            return t;
        }

        /** Sends tool results; the model answers with a call of {@code tool}, which goes into the history. */
        Turn toolResult(String result, String tool) {
            messages.add(new ChatMessage(Role.TOOL, result, List.of(), Optional.of("call")));
            return callTool(tool);
        }

        /** Sends the client's messages; the model calls {@code tool}, and the call goes into the history. */
        Turn callTool(String tool) {
            String args = "{\"step\": " + messages.size() + "}";
            Turn t = turn(request(key, tools, messages), "<tool_call>\n{\"name\": \"" + tool + "\", \"arguments\": "
                    + args + "}\n</tool_call>");
            messages.add(new ChatMessage(Role.ASSISTANT, "", List.of(new ToolCallRecord("call", tool, args)),
                    Optional.empty()));
            return t;
        }

        /** Replaces the text of the user message number {@code index} (0 = the first). */
        void editUser(int index, String text) {
            int seen = 0;
            for (int i = 0; i < messages.size(); i++) {
                if (messages.get(i).role() == Role.USER && seen++ == index) {
                    messages.set(i, user(text));
                    return;
                }
            }
            throw new IllegalArgumentException("no user message " + index);
        }

        /** Removes the last answer and its question (Open WebUI before regenerating), returning the question. */
        String dropLastExchange() {
            messages.removeLast();
            return messages.removeLast().content();
        }
    }

    Chat chat(String system) {
        return new Chat(system, Optional.empty(), Optional.empty());
    }

    static ChatMessage system(String text) {
        return ChatMessage.of(Role.SYSTEM, text);
    }

    static ChatMessage user(String text) {
        return ChatMessage.of(Role.USER, text);
    }

    static ChatMessage assistant(String text) {
        return ChatMessage.of(Role.ASSISTANT, text);
    }

    @Override
    public void close() {
        registry.shutdown(Duration.ZERO);
    }

    /** A runtime 1.3 that describes itself but loads nothing: the bench never runs a model. */
    private static final class DescribingBackend implements Backend {
        @Override
        public RuntimeInfo info() {
            return new RuntimeInfo("RKLLM runtime", "1.3", true, new Sampling(1, 0.9, 0.8, 1.1, 0, 0), true, false,
                    ChatPrompt.Form.TEXTS);
        }

        @Override
        public BackendModel load(ModelLoad load, LoadContext context) {
            throw new IllegalStateException("this runtime loads no models");
        }
    }
}
