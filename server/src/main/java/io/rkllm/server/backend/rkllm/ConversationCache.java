package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.PromptImage;
import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.engine.contract.cache.CacheContents;
import io.rkllm.server.engine.contract.cache.CachedConversation;
import io.rkllm.server.engine.contract.cache.Keys;
import io.rkllm.server.engine.contract.cache.Trim;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One model's slots as the RKLLM cache policy keeps them, on the worker thread right before and after each run:
 * the policy's decision ({@link RkllmCachePolicy}, pure) is carried out on the slots (set the template or tools,
 * check the cache's size, clear it), and after the run what the slot now holds is recorded. What the caches hold
 * is known for sure only here, which is why the decision is taken here and not when the request is prepared.
 */
public final class ConversationCache {
    private static final Logger LOG = LoggerFactory.getLogger(ConversationCache.class);

    private enum Mode { INCREMENTAL, FULL, TASK, UNCACHED, PICTURES_ONCE }

    private final SlotBook book;
    private final RkllmCachePolicy policy;
    private final ThinkingControl thinking;
    private final String family;

    /**
     * @param slots how many slots the model may have
     * @param family the model's family, for the thinking flag's warning
     */
    public ConversationCache(int slots, RkllmCachePolicy policy, ThinkingControl thinking, String family) {
        this.book = new SlotBook(slots);
        this.policy = policy;
        this.thinking = thinking;
        this.family = family;
    }

    /** What the slots hold now; from any thread. */
    public CacheContents held() {
        return book.held();
    }

    /**
     * One run, decided and prepared on {@code slots} (the slots the model may use now; touching one that is not
     * loaded yet loads it).
     */
    public Planned plan(ChatPrompt prompt, List<? extends RkllmSlot> slots) {
        int count = Math.min(book.size(), slots.size());
        RkllmCachePolicy.Decision decision = policy.decide(book.views(count), prompt);
        int index = decision.slot();
        RkllmSlot model = slots.get(index);
        SlotState slot = book.slot(index);
        slot.touch(book.nextTick());
        if (prompt.task().isEmpty()) {
            slot.conversationKey(prompt.identity().conversationKey());
        }
        for (RkllmCachePolicy.Setup call : decision.setup()) {
            switch (call) {
                case RkllmCachePolicy.Setup.Tools tools -> {
                    model.setFunctionTools(tools.systemPrompt(), tools.toolsJson(), tools.toolResponseTag());
                    if (tools.toolsJson().isEmpty()) {
                        slot.tools(null);
                    } else {
                        slot.tools(tools.toolsJson());
                        slot.template(null);
                    }
                }
                case RkllmCachePolicy.Setup.Template t -> {
                    PromptTemplate template = t.template();
                    model.setChatTemplate(template.systemPrompt(), template.promptPrefix(), template.promptPostfix());
                    slot.template(template);
                }
            }
        }
        boolean flag = thinking.runtimeFlag(prompt.model(), family, prompt.setup().template().isPresent(),
                prompt.settings().thinking());
        return switch (decision.action()) {
            case RkllmCachePolicy.Action.Beside beside -> task(prompt, index, model, slot, beside);
            case RkllmCachePolicy.Action.Uncached uncached -> {
                model.clearKvCache(false);
                slot.conversation(null);
                yield whole(prompt, index, flag, Mode.UNCACHED, false, 0);
            }
            case RkllmCachePolicy.Action.Append append -> {
                if (!append.verify() || model.kvCacheSize().orElse(append.expectedTokens())
                        == append.expectedTokens()) {
                    yield increment(prompt, index, flag, slot.conversation().orElseThrow());
                }
                LOG.debug("cache of {} not reused: size check failed", prompt.model());
                yield resend(prompt, index, model, slot, flag, append.otherwise());
            }
            case RkllmCachePolicy.Action.Resend resend -> resend(prompt, index, model, slot, flag, resend);
        };
    }

    private Planned resend(ChatPrompt prompt, int index, RkllmSlot model, SlotState slot, boolean flag,
                           RkllmCachePolicy.Action.Resend resend) {
        model.clearKvCache(resend.keepSystemPrompt());
        int kept = resend.keepSystemPrompt() ? model.kvCacheSize().orElse(0) : 0;
        slot.conversation(null);
        return whole(prompt, index, flag, resend.picturesOnce() ? Mode.PICTURES_ONCE : Mode.FULL,
                !resend.picturesOnce(), kept);
    }

    private Planned task(ChatPrompt prompt, int index, RkllmSlot model, SlotState slot,
                         RkllmCachePolicy.Action.Beside beside) {
        int current = model.kvCacheSize().orElseGet(() -> slot.conversation().map(CachedConversation::tokens)
                .orElse(0));
        if (current + beside.roomNeeded() > prompt.settings().contextLength()) {
            throw new IllegalStateException("no room for the task next to the cached conversation");
        }
        RunRequest request = new RunRequest("user", prompt.task().orElseThrow().text(), false, false,
                prompt.settings().sampling(), List.of());
        return new Planned(index, request, current, Mode.TASK, slot, prompt, current, List.of(), Trim.NONE, "", "",
                false);
    }

    private Planned increment(ChatPrompt prompt, int index, boolean flag, CachedConversation held) {
        ChatPrompt.Part part = prompt.texts().newPart();
        RunRequest request = new RunRequest(part.role(), part.text(), flag, true, prompt.settings().sampling(),
                part.images());
        return new Planned(index, request, held.tokens(), Mode.INCREMENTAL, book.slot(index), prompt, held.tokens(),
                concat(held.turns(), prompt.identity().newKeys()), held.trim(), held.leftOutDigest(), part.text(),
                !part.images().isEmpty());
    }

    /** The whole conversation as one turn, on a cache that holds {@code kept} tokens of the system prompt. */
    private Planned whole(ChatPrompt prompt, int index, boolean flag, Mode mode, boolean keepHistory, int kept) {
        ChatPrompt.Part part = prompt.texts().whole();
        Optional<PromptTemplate> template = prompt.setup().template();
        String text = part.text();
        String systemPart = kept > 0 ? "" : template.map(PromptTemplate::systemPrompt).orElse("");
        // with tools the runtime prefills its own system part (the tools and its instructions around them), whose
        // text we do not know: such a run would teach the estimator a far too small ratio
        boolean knownText = kept > 0 || prompt.setup().tools().isEmpty();
        String sent = !knownText ? ""
                : systemPart + template.map(t -> t.promptPrefix() + text + t.promptPostfix()).orElse(text);
        List<String> all = prompt.identity().history();
        Trim trim = prompt.identity().trim();
        List<PromptImage> images = part.images();
        RunRequest request = new RunRequest("user", text, flag, keepHistory, prompt.settings().sampling(), images);
        return new Planned(index, request, kept, mode, book.slot(index), prompt, kept,
                concat(trim.kept(all), prompt.identity().newKeys()), trim, Keys.digest(trim.leftOut(all)), sent,
                !images.isEmpty());
    }

    /**
     * After the run, on the worker thread: records what the slot's cache now holds.
     *
     * @param generatedText the text the run delivered
     * @return the text the runtime prefilled whole in this run, when it is known exactly (for the pipeline's
     *         estimator, with the run's prefill count)
     */
    public Optional<String> finished(Planned run, RunOutcome outcome, String generatedText) {
        if (run.mode == Mode.TASK) {
            return Optional.empty();
        }
        SlotState slot = run.slotState;
        if (!(outcome instanceof RunOutcome.Finished f)) {
            slot.conversation(null);
            return Optional.empty();
        }
        // a picture's tokens are no text: they would teach the estimator a wrong ratio
        Optional<String> prefilled = (run.mode == Mode.FULL || run.mode == Mode.UNCACHED) && !run.pictures
                && !run.sentText.isEmpty() ? Optional.of(run.sentText) : Optional.empty();
        ChatPrompt prompt = run.prompt;
        String tools = prompt.setup().tools().orElse("");
        if (run.mode == Mode.PICTURES_ONCE && !f.aborted()) {
            // keep_history=0: the cache is back to what it held before, the system prompt (or nothing)
            slot.conversation(new CachedConversation(prompt.setup().systemPrompt(), Trim.NONE, Keys.digest(List.of()),
                    List.of(), run.cacheBefore, tools));
            return prefilled;
        }
        if (run.mode == Mode.UNCACHED || f.aborted()) {
            // an aborted run may have cached tokens nobody saw: start clean next time
            slot.conversation(null);
            return prefilled;
        }
        Optional<String> answer = prompt.identity().answerKey().of(generatedText);
        if (answer.isEmpty()) {
            // runtime 1.3.0 ends thinking runs at </think>, and the next run on that cache stops early: start clean
            slot.conversation(null);
            return prefilled;
        }
        int tokens = run.cacheBefore + f.stats().prefillTokens() + f.stats().generateTokens();
        CachedConversation held = new CachedConversation(prompt.setup().systemPrompt(), run.trim, run.leftOutDigest,
                concat(run.heldKeys, List.of(answer.get())), tokens, tools);
        slot.conversation(held);
        book.remember(held);
        return prefilled;
    }

    /**
     * One run as planned: its slot, what to run, and what the cache held of the conversation before it; with what
     * the bookkeeping needs afterwards.
     */
    public static final class Planned {
        private final int slot;
        private final RunRequest request;
        private final int reusedTokens;
        private final Mode mode;
        private final SlotState slotState;
        private final ChatPrompt prompt;
        private final int cacheBefore;
        private final List<String> heldKeys;
        private final Trim trim;
        private final String leftOutDigest;
        private final String sentText;
        private final boolean pictures;

        private Planned(int slot, RunRequest request, int reusedTokens, Mode mode, SlotState slotState,
                        ChatPrompt prompt, int cacheBefore, List<String> heldKeys, Trim trim, String leftOutDigest,
                        String sentText, boolean pictures) {
            this.slot = slot;
            this.request = request;
            this.reusedTokens = reusedTokens;
            this.mode = mode;
            this.slotState = slotState;
            this.prompt = prompt;
            this.cacheBefore = cacheBefore;
            this.heldKeys = heldKeys;
            this.trim = trim;
            this.leftOutDigest = leftOutDigest;
            this.sentText = sentText;
            this.pictures = pictures;
        }

        public int slot() {
            return slot;
        }

        public RunRequest request() {
            return request;
        }

        /** What the slot's KV cache already holds of this conversation (reported in usage). */
        public int reusedTokens() {
            return reusedTokens;
        }
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a.size() + b.size());
        all.addAll(a);
        all.addAll(b);
        return all;
    }
}
