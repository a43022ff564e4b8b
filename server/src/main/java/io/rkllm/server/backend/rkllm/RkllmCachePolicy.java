package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.cache.CacheDecision;
import io.rkllm.server.engine.contract.cache.CachedConversation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.PromptTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * RKLLM's KV cache policy, a pure function of what each slot holds and the new prompt: the runtime appends a turn
 * to a handle's cache on every {@code keep_history=1} run, and can only clear it (keeping the system prompt's
 * entries, or not), so reuse is at the level of whole conversations.
 *
 * <ul>
 *   <li>A request whose history is exactly what a slot's cache holds sends only its new user/tool
 *       messages with keep_history=1 (after checking the bookkeeping against the runtime's cache size).</li>
 *   <li>Otherwise the slot is cleared (keeping the system prompt's entries when it is unchanged) and the
 *       whole conversation, with the trim the pipeline decided, is sent flattened as one turn with
 *       keep_history=1. A cache that holds the conversation under another trim is not reused: the client was
 *       told which messages the model sees, and the policy keeps to that.</li>
 *   <li>Background tasks run with keep_history=0 next to whatever a slot holds: the runtime sees the
 *       cached context, and drops the task's own tokens afterwards, so the chat's cache survives.</li>
 * </ul>
 * The slot: the one holding the conversation, else an empty one, else the least recently used.
 *
 * <p>Pictures (a vision model): by default ({@code vision.cache_policy: resend}) a run that shows a picture is
 * always a full resend with keep_history=0, and the slot then holds only the system prompt; so a follow-up in a
 * picture chat is sent whole again, the picture's embedding from the cache (no encoder run), because whether the
 * runtime keeps image tokens in its KV cache across turns is not proven. With {@code incremental} such runs keep
 * their history like text, and follow-ups send only the new message.
 */
public final class RkllmCachePolicy {
    /** The tag the runtime wraps tool results in, given with the tools. */
    static final String TOOL_RESPONSE_TAG = "tool_response";
    /** Room always left for the answer when checking that new messages fit on a cache. */
    static final int MIN_OUTPUT_TOKENS = 16;

    /**
     * @param cacheEnabled {@code cache.enabled}: off, every turn is resent on a cleared slot and nothing is kept
     * @param verify {@code cache.verify}: check the bookkeeping against the runtime's cache size before appending
     * @param incrementalPictures {@code vision.cache_policy: incremental}
     */
    public record Settings(boolean cacheEnabled, boolean verify, boolean incrementalPictures) {
    }

    /** What one slot holds, as the policy sees it. */
    public record SlotView(Optional<PromptTemplate> template, Optional<String> tools,
                           Optional<CachedConversation> conversation, long lastUsed, String conversationKey) {
        /** A slot never used. */
        public static final SlotView EMPTY = new SlotView(Optional.empty(), Optional.empty(), Optional.empty(), 0, "");
    }

    /** A call that makes a slot's template or tools the request's, before anything else. */
    public sealed interface Setup {
        /** {@code rkllm_set_function_tools}; an empty {@code toolsJson} takes the tools away. */
        record Tools(String systemPrompt, String toolsJson, String toolResponseTag) implements Setup {
        }

        /** {@code rkllm_set_chat_template}. */
        record Template(PromptTemplate template) implements Setup {
        }
    }

    /** What the run does with the slot's cache, and what it sends. */
    public sealed interface Action {
        /**
         * Only the new messages, on top of the conversation the cache holds: {@code expectedTokens} by the
         * bookkeeping; when {@code verify} and the runtime counts otherwise, {@code otherwise}.
         */
        record Append(int expectedTokens, boolean verify, Resend otherwise) implements Action {
        }

        /**
         * The cache cleared (the system prompt's entries kept when it is unchanged), the whole conversation sent;
         * with {@code picturesOnce} (pictures, {@code vision.cache_policy: resend}) not kept afterwards.
         */
        record Resend(boolean keepSystemPrompt, boolean picturesOnce) implements Action {
        }

        /** {@code cache.enabled: false}: the cache cleared, the whole conversation sent and not kept. */
        record Uncached() implements Action {
        }

        /** A background task beside what the cache holds, not kept; it needs {@code roomNeeded} more tokens. */
        record Beside(int roomNeeded) implements Action {
        }
    }

    /** The slot, the calls that set it up, and the action. */
    public record Decision(int slot, List<Setup> setup, Action action) {
        public Decision {
            setup = List.copyOf(setup);
        }

        /** The same decision in the words every backend's policy speaks. */
        public CacheDecision cache() {
            return new CacheDecision(slot, switch (action) {
                case Action.Append append -> new CacheDecision.Reuse.All(append.expectedTokens());
                case Action.Resend resend -> resend.keepSystemPrompt() ? new CacheDecision.Reuse.SystemPrompt()
                        : new CacheDecision.Reuse.Nothing();
                case Action.Uncached uncached -> new CacheDecision.Reuse.Nothing();
                case Action.Beside beside -> new CacheDecision.Reuse.Beside();
            }, !(action instanceof Action.Uncached || action instanceof Action.Beside
                    || action instanceof Action.Resend r && r.picturesOnce()));
        }
    }

    private final Settings settings;

    public RkllmCachePolicy(Settings settings) {
        this.settings = settings;
    }

    public Settings settings() {
        return settings;
    }

    /** The decision for {@code prompt} on {@code slots} (the slots the model may use now, loaded or not). */
    public Decision decide(List<SlotView> slots, ChatPrompt prompt) {
        List<String> history = prompt.identity().history();
        String tools = prompt.setup().tools().orElse("");
        int index = chooseSlot(slots, prompt, history, tools);
        SlotView slot = slots.get(index);
        String system = prompt.setup().systemPrompt();
        if (prompt.task().isPresent()) {
            // changing the tools would cost the chat its cache; a template change only shapes this prompt
            List<Setup> setup = slot.tools().isEmpty() ? setup(slot, prompt).calls() : List.of();
            return new Decision(index, setup, new Action.Beside(prompt.task().get().roomNeeded()));
        }
        SetupCalls setup = setup(slot, prompt);
        if (!settings.cacheEnabled() || prompt.setup().raw().isPresent()) {
            // a raw prompt is read on an empty cache (no system block a chat left) and not kept as a conversation:
            // a chat that sends its text back must not be appended to it, read without the chat template
            return new Decision(index, setup.calls(), new Action.Uncached());
        }
        Optional<CachedConversation> held = slot.conversation();
        boolean keepSystem = !setup.toolsChanged() && held.isPresent() && held.get().systemPrompt().equals(system)
                && held.get().tools().equals(tools);
        Action.Resend resend = new Action.Resend(keepSystem, !prompt.texts().whole().images().isEmpty()
                && !settings.incrementalPictures());
        // the trim was decided (and told to the client) when the request was prepared: keep to it
        boolean newPictures = !prompt.texts().newPart().images().isEmpty();
        if (!setup.toolsChanged() && held.isPresent() && held.get().holds(system, history, tools)
                && held.get().trim().equals(prompt.identity().trim())
                && (!newPictures || settings.incrementalPictures())
                && incrementFits(held.get().tokens(), prompt.texts().newPart().estimatedTokens(),
                prompt.settings().reserveTokens(), prompt.settings().contextLength())) {
            return new Decision(index, setup.calls(), new Action.Append(held.get().tokens(), settings.verify(),
                    resend));
        }
        return new Decision(index, setup.calls(), resend);
    }

    /** Whether new messages of {@code increment} tokens and the answer's reserve fit on a cache of {@code cached}. */
    static boolean incrementFits(int cached, int increment, int reserve, int context) {
        return cached + increment + MIN_OUTPUT_TOKENS + reserve <= context;
    }

    private record SetupCalls(List<Setup> calls, boolean toolsChanged) {
    }

    /** The calls that set the template or tools where they differ from the slot's; whether the tools changed. */
    private static SetupCalls setup(SlotView slot, ChatPrompt prompt) {
        Optional<String> tools = prompt.setup().tools();
        if (tools.isPresent()) {
            List<Setup> calls = new ArrayList<>();
            if (slot.template().filter(PromptTemplate.NONE::equals).isPresent()
                    && prompt.setup().template().isPresent()) {
                // a raw prompt emptied the runtime's template, which the tools do not put back
                calls.add(new Setup.Template(prompt.setup().template().get()));
            }
            boolean changed = !tools.equals(slot.tools());
            if (changed) {
                calls.add(new Setup.Tools(prompt.setup().systemPrompt(), tools.get(), TOOL_RESPONSE_TAG));
            }
            return new SetupCalls(calls, changed);
        }
        List<Setup> calls = new ArrayList<>();
        boolean hadTools = slot.tools().isPresent();
        if (hadTools) {
            calls.add(new Setup.Tools(prompt.setup().systemPrompt(), "", ""));
        }
        Optional<PromptTemplate> template = prompt.setup().template();
        if (template.isPresent() && (hadTools || !template.equals(slot.template()))) {
            calls.add(new Setup.Template(template.get()));
        }
        return new SetupCalls(calls, hadTools);
    }

    /** The slot among those offered. */
    private static int chooseSlot(List<SlotView> slots, ChatPrompt prompt, List<String> history, String tools) {
        int count = slots.size();
        String system = prompt.setup().systemPrompt();
        int best = -1;
        for (int i = 0; i < count; i++) {
            Optional<CachedConversation> held = slots.get(i).conversation();
            if (held.isPresent() && held.get().holds(system, history, tools)) {
                return i;
            }
        }
        if (prompt.task().isPresent()) {
            // any slot will do for a keep_history=0 run: the most recently used holds this chat, most likely
            for (int i = 0; i < count; i++) {
                if (best < 0 || slots.get(i).lastUsed() > slots.get(best).lastUsed()) {
                    best = i;
                }
            }
            return best;
        }
        for (int i = 0; i < count; i++) {
            if (slots.get(i).conversationKey().equals(prompt.identity().conversationKey())) {
                // the same chat, edited or regenerated: resend on its own slot, not over another chat's
                return i;
            }
        }
        for (int i = 0; i < count; i++) {
            if (slots.get(i).conversation().isEmpty() && slots.get(i).lastUsed() == 0) {
                return i;
            }
        }
        for (int i = 0; i < count; i++) {
            if (best < 0 || slots.get(i).lastUsed() < slots.get(best).lastUsed()) {
                best = i;
            }
        }
        return best;
    }
}
