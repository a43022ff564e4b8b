package io.rkllm.server.pipeline;

import io.rkllm.server.engine.cache.CachedConversation;
import io.rkllm.server.engine.cache.Trim;
import io.rkllm.server.engine.KvCacheHandle;
import io.rkllm.server.engine.RunOutcome;
import io.rkllm.server.engine.RunImage;
import io.rkllm.server.engine.RunPlanner;
import io.rkllm.server.engine.RunRequest;
import io.rkllm.server.pipeline.request.ChatMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The conversation-aware KV cache policy, run on the model's worker right before each run.
 *
 * <ul>
 *   <li>A request whose history is exactly what a slot's cache holds sends only its new user/tool
 *       messages with keep_history=1 (after checking the bookkeeping against the runtime's cache size).</li>
 *   <li>Otherwise the slot is cleared (keeping the system prompt's entries when it is unchanged) and the
 *       whole conversation, with the trim {@link ContextFit} decided, is sent flattened as one turn with
 *       keep_history=1. A cache that holds the conversation under another trim is not reused: the client was
 *       told which messages the model sees, and the planner keeps to that.</li>
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
final class ConversationPlanner implements RunPlanner {
    private static final Logger LOG = LoggerFactory.getLogger(ConversationPlanner.class);
    static final String TOOL_RESPONSE_TAG = "tool_response";

    private enum Mode { INCREMENTAL, FULL, TASK, UNCACHED, PICTURES_ONCE }

    private final PreparedChat chat;
    private final ModelCacheState cache;
    private final TokenEstimator estimator;
    private final boolean cacheEnabled;
    private final boolean verify;
    private final boolean incrementalPictures;

    // decided in plan(), used in finished(); both run on the worker thread
    private SlotState slot;
    private Mode mode;
    private int cacheBefore;
    private List<String> heldKeys = List.of();
    private Trim trim = Trim.NONE;
    private String leftOutDigest = "";
    private String sentText = "";
    private boolean pictures;

    ConversationPlanner(PreparedChat chat, ModelCacheState cache, TokenEstimator estimator, boolean cacheEnabled,
                        boolean verify) {
        this(chat, cache, estimator, cacheEnabled, verify, false);
    }

    /**
     * @param incrementalPictures runs with pictures keep their history and follow-ups are incremental
     *                            ({@code vision.cache_policy: incremental})
     */
    ConversationPlanner(PreparedChat chat, ModelCacheState cache, TokenEstimator estimator, boolean cacheEnabled,
                        boolean verify, boolean incrementalPictures) {
        this.chat = chat;
        this.cache = cache;
        this.estimator = estimator;
        this.cacheEnabled = cacheEnabled;
        this.verify = verify;
        this.incrementalPictures = incrementalPictures;
    }

    @Override
    public RunPlan plan(List<? extends KvCacheHandle> slots) {
        Conversation c = chat.conversation();
        List<String> history = MessageKeys.keys(c.history());
        String tools = chat.request().toolsJson().orElse("");
        int index = chooseSlot(Math.min(cache.size(), slots.size()), history, tools);
        KvCacheHandle model = slots.get(index);
        slot = cache.slot(index);
        slot.touch(cache.nextTick());
        if (chat.task().isEmpty()) {
            slot.conversationKey(conversationKey());
        }
        String system = c.systemPrompt();
        Optional<PromptFormat.RuntimeTemplate> template = chat.format()
                .map(f -> f.template(f.acceptsSystemPrompt() ? system : "", !chat.thinking()));

        if (chat.task().isPresent()) {
            return planTask(index, model, template, system);
        }
        boolean toolsChanged = applyTemplateAndTools(model, template, system);
        Optional<CachedConversation> held = slot.conversation();
        if (!cacheEnabled) {
            mode = Mode.UNCACHED;
            model.clearKvCache(false);
            slot.conversation(null);
            return full(index, template, false, 0);
        }
        // the trim was decided (and told to the client) when the request was prepared: keep to it
        int newPictures = VisionInput.count(c.newMessages());
        if (!toolsChanged && held.isPresent() && held.get().holds(system, history, tools)
                && held.get().trim().equals(chat.trim()) && (newPictures == 0 || incrementalPictures)) {
            CachedConversation conversation = held.get();
            String prompt = PromptFlattener.incremental(c.newMessages());
            boolean fits = ContextFit.incrementFits(conversation.tokens(), estimator.estimate(chat.model().id(),
                    prompt) + newPictures * chat.vision().tokensPerImage(), chat.reserveTokens(),
                    chat.model().contextLength());
            boolean verified = !verify || model.kvCacheSize().orElse(conversation.tokens()) == conversation.tokens();
            if (fits && verified) {
                mode = Mode.INCREMENTAL;
                cacheBefore = conversation.tokens();
                trim = conversation.trim();
                leftOutDigest = conversation.leftOutDigest();
                heldKeys = concat(conversation.turns(), c.newMessageKeys());
                sentText = prompt;
                pictures = newPictures > 0;
                return new RunPlan(index, new RunRequest(c.newRole(), prompt, chat.thinkingFlag(), true,
                        chat.sampling(), chat.vision().runImages(c.newMessages())), cacheBefore);
            }
            LOG.debug("cache of {} not reused: {}", chat.model().id(), fits ? "size check failed" : "context full");
        }
        boolean keepSystem = !toolsChanged && held.isPresent() && held.get().systemPrompt().equals(system)
                && held.get().tools().equals(tools);
        mode = Mode.FULL;
        model.clearKvCache(keepSystem);
        int kept = keepSystem ? model.kvCacheSize().orElse(0) : 0;
        slot.conversation(null);
        return full(index, template, true, kept);
    }

    @Override
    public void finished(RunPlan plan, RunOutcome outcome, String generatedText) {
        if (mode == Mode.TASK) {
            return;
        }
        if (!(outcome instanceof RunOutcome.Finished f)) {
            slot.conversation(null);
            return;
        }
        if ((mode == Mode.FULL || mode == Mode.UNCACHED) && !pictures) {
            // a picture's tokens are no text: they would teach the estimator a wrong ratio
            estimator.calibrate(chat.model().id(), sentText, f.stats().prefillTokens());
        }
        if (mode == Mode.PICTURES_ONCE && !f.aborted()) {
            // keep_history=0: the cache is back to what it held before, the system prompt (or nothing)
            slot.conversation(new CachedConversation(chat.conversation().systemPrompt(), Trim.NONE,
                    MessageKeys.digest(List.of()), List.of(), cacheBefore, chat.request().toolsJson().orElse("")));
            return;
        }
        if (mode == Mode.UNCACHED || f.aborted()) {
            // an aborted run may have cached tokens nobody saw: start clean next time
            slot.conversation(null);
            return;
        }
        String answer = MessageKeys.generated(generatedText, chat.scanner());
        if (IncompleteAnswer.isReasoningOnly(answer, generatedText)) {
            // runtime 1.3.0 ends thinking runs at </think>, and the next run on that cache stops early: start clean
            slot.conversation(null);
            return;
        }
        List<String> turns = concat(heldKeys, List.of(answer));
        int tokens = cacheBefore + f.stats().prefillTokens() + f.stats().generateTokens();
        CachedConversation held = new CachedConversation(chat.conversation().systemPrompt(), trim, leftOutDigest,
                turns, tokens, chat.request().toolsJson().orElse(""));
        slot.conversation(held);
        cache.remember(held);
    }

    private RunPlan planTask(int index, KvCacheHandle model, Optional<PromptFormat.RuntimeTemplate> template,
                             String system) {
        mode = Mode.TASK;
        // Changing the tools would cost the chat its cache; a template change only shapes this prompt.
        if (slot.tools().isEmpty()) {
            applyTemplateAndTools(model, template, system);
        }
        String prompt = PromptFlattener.flatten(chat.conversation());
        int current = model.kvCacheSize().orElseGet(() -> slot.conversation().map(CachedConversation::tokens)
                .orElse(0));
        int needed = estimator.estimate(chat.model().id(), prompt) + 16 + Math.max(chat.maxTokens(), 16);
        if (current + needed > chat.model().contextLength()) {
            throw new IllegalStateException("no room for the task next to the cached conversation");
        }
        return new RunPlan(index, new RunRequest("user", prompt, false, false, chat.sampling()), current);
    }

    private RunPlan full(int index, Optional<PromptFormat.RuntimeTemplate> template, boolean keepHistory,
                         int kept) {
        Conversation c = chat.conversation();
        trim = chat.trim();
        Conversation trimmed = c.trimmed(trim);
        boolean systemInPrompt = chat.format().isEmpty() || !chat.format().get().acceptsSystemPrompt();
        String prompt = (systemInPrompt && !c.systemPrompt().isEmpty() ? c.systemPrompt() + "\n\n" : "")
                + PromptFlattener.flatten(trimmed);
        String systemPart = kept > 0 ? "" : template.map(PromptFormat.RuntimeTemplate::systemPrompt).orElse("");
        // with tools the runtime prefills its own system part (the tools and its instructions around them), whose
        // text we do not know: such a run would teach the estimator a far too small ratio
        boolean knownText = kept > 0 || chat.request().toolsJson().isEmpty();
        sentText = !knownText ? ""
                : systemPart + template.map(t -> t.promptPrefix() + prompt + t.promptPostfix()).orElse(prompt);
        cacheBefore = kept;
        List<String> all = MessageKeys.keys(c.history());
        leftOutDigest = MessageKeys.digest(trim.leftOut(all));
        heldKeys = concat(trim.kept(all), c.newMessageKeys());
        List<RunImage> images = chat.vision().runImages(concat(trimmed.history(), trimmed.newMessages()));
        pictures = !images.isEmpty();
        boolean keep = keepHistory;
        if (pictures && keepHistory && !incrementalPictures) {
            mode = Mode.PICTURES_ONCE;
            keep = false;
        }
        return new RunPlan(index, new RunRequest("user", prompt, chat.thinkingFlag(), keep, chat.sampling(), images),
                kept);
    }

    /** Sets the template or tools when they differ from the slot's; true when the tools changed (cache lost). */
    private boolean applyTemplateAndTools(KvCacheHandle model, Optional<PromptFormat.RuntimeTemplate> template, String system) {
        Optional<String> tools = chat.request().toolsJson();
        if (tools.isPresent()) {
            if (!tools.equals(slot.tools())) {
                model.setFunctionTools(system, tools.get(), TOOL_RESPONSE_TAG);
                slot.tools(tools.get());
                slot.template(null);
                return true;
            }
            return false;
        }
        boolean hadTools = slot.tools().isPresent();
        if (hadTools) {
            model.setFunctionTools(system, "", "");
            slot.tools(null);
        }
        if (template.isPresent() && (hadTools || !template.equals(slot.template()))) {
            PromptFormat.RuntimeTemplate t = template.get();
            model.setChatTemplate(t.systemPrompt(), t.promptPrefix(), t.promptPostfix());
            slot.template(t);
        }
        return hadTools;
    }

    /** The slot among the first {@code count} (those the engine offers now). */
    private int chooseSlot(int count, List<String> history, String tools) {
        String system = chat.conversation().systemPrompt();
        int best = -1;
        for (int i = 0; i < count; i++) {
            Optional<CachedConversation> held = cache.slot(i).conversation();
            if (held.isPresent() && held.get().holds(system, history, tools)) {
                return i;
            }
        }
        if (chat.task().isPresent()) {
            // any slot will do for a keep_history=0 run: the most recently used holds this chat, most likely
            for (int i = 0; i < count; i++) {
                if (best < 0 || cache.slot(i).lastUsed() > cache.slot(best).lastUsed()) {
                    best = i;
                }
            }
            return best;
        }
        String key = conversationKey();
        for (int i = 0; i < count; i++) {
            if (cache.slot(i).conversationKey().equals(key)) {
                // the same chat, edited or regenerated: resend on its own slot, not over another chat's
                return i;
            }
        }
        for (int i = 0; i < count; i++) {
            if (cache.slot(i).conversation().isEmpty() && cache.slot(i).lastUsed() == 0) {
                return i;
            }
        }
        for (int i = 0; i < count; i++) {
            if (best < 0 || cache.slot(i).lastUsed() < cache.slot(best).lastUsed()) {
                best = i;
            }
        }
        return best;
    }

    /**
     * The conversation's identity: the client's (Open WebUI's chat id header, {@code prompt_cache_key},
     * {@code user}) when given, else the system prompt and first message, which an edit further down or a
     * regenerated answer leaves unchanged.
     */
    private String conversationKey() {
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
