package io.rkllm.server.pipeline;

import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides, before the run, which earlier messages the model will not see: the trim the planner then keeps to,
 * so that the {@code X-RKLLM-Context-Trimmed} header, written before the run, says exactly what was left out.
 *
 * <ul>
 *   <li>A conversation a slot's cache holds, with room for this turn, keeps that slot's trim (the turn is
 *       incremental).</li>
 *   <li>Otherwise the conversation is sent whole again, with the trim it last had (after an overflow, an edit,
 *       a regenerated answer, a switch to another chat and back) or none, if that leaves room for this turn and
 *       one more like it.</li>
 *   <li>If not, old exchanges are left out in one large step, until the rest fills at most {@code trimTo} of the
 *       room for the prompt: the turns after it are incremental again for a while, instead of the next
 *       overflow coming one turn later (each overflow resends the whole kept conversation).</li>
 * </ul>
 * The system prompt and the newest messages always stay; in an agent loop whose own tool rounds fill the context,
 * the user message that started it stays too. With the cache off every turn is resent anyway, so as little as
 * possible is left out.
 */
final class ContextFit {
    /** Room always left for the answer when checking the context. */
    static final int MIN_OUTPUT_TOKENS = 16;
    /** The estimate is a guess; leave a margin before the runtime's hard limit. */
    static final double ESTIMATE_MARGIN = 1.10;

    /**
     * The trim and the prompt it gives.
     *
     * @param promptEstimate what the runtime holds before generating: the cache plus the new message on an
     *                       incremental turn, the estimate of the whole (trimmed) prompt on a resend
     */
    record Fit(Trim trim, int promptEstimate) {
    }

    /**
     * What a model's KV caches hold now, and the trims of recent conversations that lost their slot.
     *
     * @param earlier conversations reduced to their trim ({@link CachedConversation#trimOnly()})
     */
    record Held(List<CachedConversation> slots, List<CachedConversation> earlier) {
        static final Held NOTHING = new Held(List.of(), List.of());
    }

    /** What a model's KV caches hold; nothing when the model is not loaded. Read from the request's thread. */
    interface CacheView {
        Held held(ModelDescriptor model);
    }

    private final TokenEstimator estimator;
    private final boolean cacheEnabled;
    private final double trimTo;

    /**
     * @param trimTo the share of the room for the prompt (the context less the answer's reserve) that a
     *               conversation fills at most right after old exchanges were left out
     */
    ContextFit(TokenEstimator estimator, boolean cacheEnabled, double trimTo) {
        this.estimator = estimator;
        this.cacheEnabled = cacheEnabled;
        this.trimTo = trimTo;
    }

    Fit fit(ModelDescriptor model, Optional<PromptFormat> format, Conversation c, Optional<String> tools,
            int reserve, Held held) {
        int context = model.contextLength();
        Prompts prompts = new Prompts(model, format, c, tools);
        List<Trim> candidates = candidates(c.history(), c.newMessages());
        if (!cacheEnabled) {
            return prompts.fit(candidates.stream().filter(t -> fits(prompts.estimate(t), reserve, context) >= 0)
                    .findFirst().orElse(candidates.getLast()));
        }
        List<String> keys = MessageKeys.keys(c.history());
        String toolsKey = tools.orElse("");
        int increment = estimator.estimate(model.id(), PromptFlattener.incremental(c.newMessages()));
        Trim floor = Trim.NONE;
        for (CachedConversation h : held.slots()) {
            if (h.holds(c.systemPrompt(), keys, toolsKey) && incrementFits(h.tokens(), increment, reserve, context)) {
                return new Fit(h.trim(), h.tokens() + increment);
            }
        }
        for (CachedConversation h : concat(held.slots(), held.earlier())) {
            // the largest trim this conversation had: it goes on from there, it never gets back what it lost
            if (h.sharesLeftOut(c.systemPrompt(), keys) && h.trim().count() > floor.count()) {
                floor = h.trim();
            }
        }
        Trim known = floor;
        List<Trim> eligible = candidates.stream().filter(t -> t.covers(known)).toList();
        if (eligible.isEmpty()) {
            eligible = candidates;
        }
        Trim first = eligible.getFirst();
        if (fits(prompts.estimate(first), reserve + increment + MIN_OUTPUT_TOKENS + reserve, context) >= 0) {
            return prompts.fit(first);
        }
        int target = (int) (trimTo * (context - reserve));
        for (Trim t : eligible) {
            if (Math.ceil(prompts.estimate(t) * ESTIMATE_MARGIN) <= target) {
                return prompts.fit(t);
            }
        }
        return prompts.fit(eligible.getLast());
    }

    private static List<CachedConversation> concat(List<CachedConversation> a, List<CachedConversation> b) {
        List<CachedConversation> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Whether new messages of {@code increment} tokens and the answer's reserve fit on a cache of {@code cached}. */
    static boolean incrementFits(int cached, int increment, int reserve, int context) {
        return cached + increment + MIN_OUTPUT_TOKENS + reserve <= context;
    }

    /** Whether the prompt leaves at least the minimum room for an answer. */
    static boolean leavesRoomForAnswer(int estimate, int context) {
        return fits(estimate, MIN_OUTPUT_TOKENS, context) >= 0;
    }

    /** What may be generated after a prompt of {@code estimate} tokens. */
    static int room(int estimate, int context) {
        return context - (int) Math.ceil(estimate * ESTIMATE_MARGIN);
    }

    /** Negative when the prompt and the reserve do not fit the context. */
    static int fits(int estimate, int reserve, int context) {
        return context - (int) Math.ceil(estimate * ESTIMATE_MARGIN) - reserve;
    }

    /**
     * The trims that may be applied, each leaving out more than the one before: none; whole exchanges from the
     * start (the history up to a user message); and when the new messages are tool results, whole tool rounds
     * of the exchange under way, oldest first, its user message kept, its newest round always kept (the new
     * results answer that round's calls).
     */
    static List<Trim> candidates(List<ChatMessage> history, List<ChatMessage> fresh) {
        List<Trim> trims = new ArrayList<>();
        trims.add(Trim.NONE);
        boolean toolResults = fresh.getFirst().role() == Role.TOOL;
        int lastUser = -1;
        for (int i = 0; i < history.size(); i++) {
            if (history.get(i).role() == Role.USER) {
                lastUser = i;
            }
        }
        for (int i = 1; i < history.size(); i++) {
            if (history.get(i).role() == Role.USER && (!toolResults || i <= lastUser)) {
                trims.add(Trim.oldest(i));
            }
        }
        if (!toolResults && !history.isEmpty()) {
            trims.add(Trim.oldest(history.size()));
        } else if (toolResults && lastUser >= 0) {
            for (int r = lastUser + 2; r < history.size(); r++) {
                if (history.get(r).role() == Role.ASSISTANT) {
                    trims.add(new Trim(lastUser, lastUser + 1, r));
                }
            }
        }
        return trims;
    }

    /** The estimates of a conversation's full prompt under each trim, from the sizes of its pieces. */
    private final class Prompts {
        private final ModelDescriptor model;
        private final Optional<PromptFormat> format;
        private final Conversation conversation;
        private final Optional<String> tools;
        private final TokenEstimator.Size fixed;
        private final TokenEstimator.Size[] turnsBefore;
        private final TokenEstimator.Size afterHistory;
        private final TokenEstimator.Size alone;

        Prompts(ModelDescriptor model, Optional<PromptFormat> format, Conversation c, Optional<String> tools) {
            this.model = model;
            this.format = format;
            this.conversation = c;
            this.tools = tools;
            this.fixed = TokenEstimator.Size.of(templateText(c) + tools.orElse(""));
            List<ChatMessage> history = c.history();
            turnsBefore = new TokenEstimator.Size[history.size() + 1];
            turnsBefore[0] = TokenEstimator.Size.ZERO;
            for (int i = 0; i < history.size(); i++) {
                turnsBefore[i + 1] = turnsBefore[i].plus(TokenEstimator.Size.of(PromptFlattener.turn(history.get(i))));
            }
            afterHistory = TokenEstimator.Size.of(PromptFlattener.newPart(c.newMessages()));
            List<ChatMessage> fresh = c.newMessages();
            alone = fresh.size() == 1 && fresh.getFirst().role() == Role.USER
                    ? TokenEstimator.Size.of(fresh.getFirst().content()) : afterHistory;
        }

        /** The estimate of the full prompt with {@code trim} applied, as {@link #exact} would give, give or take. */
        int estimate(Trim trim) {
            int n = conversation.history().size();
            TokenEstimator.Size kept = turnsBefore[trim.pinTo()].minus(turnsBefore[trim.pinFrom()])
                    .plus(turnsBefore[n].minus(turnsBefore[trim.keepFrom()]));
            return estimator.estimate(model.id(), fixed.plus(kept).plus(trim.count() == n ? alone : afterHistory));
        }

        Fit fit(Trim trim) {
            return new Fit(trim, exact(trim));
        }

        /** The estimate of the full prompt's text with {@code trim} applied. */
        private int exact(Trim trim) {
            return estimator.estimate(model.id(), templateText(conversation) + tools.orElse("")
                    + PromptFlattener.flatten(conversation.trimmed(trim)));
        }

        private String templateText(Conversation c) {
            return format.map(f -> f.template(c.systemPrompt(), true))
                    .map(t -> t.systemPrompt() + t.promptPrefix() + t.promptPostfix()).orElse(c.systemPrompt());
        }
    }
}
