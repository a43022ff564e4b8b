package io.rkllm.server.pipeline;

import io.rkllm.server.engine.contract.cache.CacheContents;
import io.rkllm.server.engine.contract.cache.CachedConversation;
import io.rkllm.server.engine.contract.cache.Trim;
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
 *   <li>Otherwise the conversation is sent whole again, with the trim it last had (after an edit, a regenerated
 *       answer, a switch to another chat and back) or none, if that leaves room for this turn and one more like
 *       it; after an overflow, only if that alone brings it down to the target below (think blocks, which the
 *       cache holds and a resend does not, can free that much).</li>
 *   <li>If not, old exchanges are left out in one large step, until the rest fills at most {@code trimTo} of the
 *       room the conversation has (the context less the system prompt, the tools and the answer's reserve): the
 *       turns after it are incremental again for a while, instead of the next overflow coming one turn later
 *       (each overflow resends the whole kept conversation).</li>
 * </ul>
 * The system prompt and the newest messages always stay; in an agent loop whose own tool rounds fill the context,
 * the user message that started it stays too. With the cache off every turn is resent anyway, so as little as
 * possible is left out.
 */
final class ContextFit {
    /**
     * What the runtime's tool template adds around the tools in the system part, for the estimate (Qwen's Hermes
     * template, which the models with tool calling served here use; about 90 tokens).
     */
    static final String TOOLS_PREAMBLE = "\n\n# Tools\n\nYou may call one or more functions to assist with the user"
            + " query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
            + "\n</tools>\n\nFor each function call, return a json object with function name and arguments within"
            + " <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\":"
            + " <args-json-object>}\n</tool_call>";

    /** Room always left for the answer when checking the context. */
    static final int MIN_OUTPUT_TOKENS = 16;
    /** The estimate is a guess; leave a margin before the runtime's hard limit. */
    static final double ESTIMATE_MARGIN = 1.10;

    /**
     * The trim and the prompt it gives.
     *
     * @param cachedTokens what the KV cache holds that this turn goes on from (exact; 0 on a resend)
     * @param sentEstimate the estimate of what is sent now: the new messages on an incremental turn, the whole
     *                     (trimmed) conversation on a resend
     */
    record Fit(Trim trim, int cachedTokens, int sentEstimate) {
        /** What the runtime will hold before it generates. */
        int promptEstimate() {
            return cachedTokens + sentEstimate;
        }

        /** What may be generated after the prompt (the estimate of what is sent with its margin). */
        int room(int context) {
            return context - cachedTokens - (int) Math.ceil(sentEstimate * ESTIMATE_MARGIN);
        }

        /** Whether the prompt leaves at least the minimum room for an answer. */
        boolean leavesRoomForAnswer(int context) {
            return room(context) >= MIN_OUTPUT_TOKENS;
        }
    }

    /** What a model's KV caches hold; nothing when the model is not loaded. Read from the request's thread. */
    interface CacheView {
        CacheContents held(ModelDescriptor model);
    }

    private final TokenEstimator estimator;
    private final boolean cacheEnabled;
    private final double trimTo;

    /**
     * @param trimTo the share of the room for the conversation (the context less the system prompt, the tools and
     *               the answer's reserve) that it fills at most right after old exchanges were left out
     */
    ContextFit(TokenEstimator estimator, boolean cacheEnabled, double trimTo) {
        this.estimator = estimator;
        this.cacheEnabled = cacheEnabled;
        this.trimTo = trimTo;
    }

    Fit fit(ModelDescriptor model, Optional<PromptFormat> format, Conversation c, Optional<String> tools,
            int reserve, CacheContents held) {
        return fit(model, format, c, tools, reserve, held, 0);
    }

    /** The same, each picture the messages show counted as {@code tokensPerImage} (a vision model). */
    Fit fit(ModelDescriptor model, Optional<PromptFormat> format, Conversation c, Optional<String> tools,
            int reserve, CacheContents held, int tokensPerImage) {
        int context = model.contextLength();
        Prompts prompts = new Prompts(model, format, c, tools, tokensPerImage);
        List<Trim> candidates = candidates(c.history(), c.newMessages());
        if (!cacheEnabled) {
            return prompts.fit(candidates.stream().filter(t -> fits(prompts.estimate(t), reserve, context) >= 0)
                    .findFirst().orElse(candidates.getLast()));
        }
        List<String> keys = MessageKeys.keys(c.history());
        String toolsKey = tools.orElse("");
        int increment = estimator.estimate(model.id(), PromptFlattener.incremental(c.newMessages()))
                + VisionInput.count(c.newMessages()) * tokensPerImage;
        Trim floor = Trim.NONE;
        boolean overflow = false;
        for (CachedConversation h : held.slots()) {
            if (h.holds(c.systemPrompt(), keys, toolsKey)) {
                if (incrementFits(h.tokens(), increment, reserve, context)) {
                    return new Fit(h.trim(), h.tokens(), increment);
                }
                overflow = true;
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
        // the system prompt (and tools) always stay: the share is of the room the conversation itself has
        double fixed = Math.ceil(prompts.fixedEstimate() * ESTIMATE_MARGIN);
        double target = fixed + trimTo * Math.max(0, context - reserve - fixed);
        Trim first = eligible.getFirst();
        int firstEstimate = prompts.estimate(first);
        // A full cache is resent with no more left out only when that alone brings it down to the target (think
        // blocks no longer in it, say): else the next turn would overflow again. Any other resend keeps what the
        // chat had if it leaves room for this turn and one more like it.
        boolean keepsFirst = overflow ? Math.ceil(firstEstimate * ESTIMATE_MARGIN) <= target
                : fits(firstEstimate, reserve + increment + MIN_OUTPUT_TOKENS + reserve, context) >= 0;
        if (keepsFirst) {
            return prompts.fit(first);
        }
        for (Trim t : eligible) {
            if (Math.ceil(prompts.estimate(t) * ESTIMATE_MARGIN) <= target) {
                return prompts.fit(t);
            }
        }
        return prompts.fit(eligible.getLast());
    }

    /** The estimate of the whole conversation's full prompt, nothing left out (what a resend would prefill). */
    int estimate(ModelDescriptor model, Optional<PromptFormat> format, Conversation c, Optional<String> tools) {
        return new Prompts(model, format, c, tools, 0).fit(Trim.NONE).sentEstimate();
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
        boolean toolResults = fresh.stream().anyMatch(m -> m.role() == Role.TOOL)
                && fresh.stream().noneMatch(m -> m.role() == Role.USER);
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
        /** A picture's tokens, and the pictures of the history messages before each index (a vision model). */
        private final int tokensPerImage;
        private final int[] picturesBefore;

        Prompts(ModelDescriptor model, Optional<PromptFormat> format, Conversation c, Optional<String> tools,
                int tokensPerImage) {
            this.model = model;
            this.format = format;
            this.conversation = c;
            this.tools = tools;
            this.tokensPerImage = tokensPerImage;
            picturesBefore = new int[c.history().size() + 1];
            for (int i = 0; i < c.history().size(); i++) {
                picturesBefore[i + 1] = picturesBefore[i] + c.history().get(i).images().size();
            }
            this.fixed = TokenEstimator.Size.of(templateText(c) + tools.map(t -> TOOLS_PREAMBLE + t).orElse(""));
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

        /** The estimate of what every resend has: the template's system prompt and the tools. */
        int fixedEstimate() {
            return estimator.estimate(model.id(), fixed);
        }

        /** The estimate of the full prompt with {@code trim} applied, as {@link #exact} would give, give or take. */
        int estimate(Trim trim) {
            int n = conversation.history().size();
            TokenEstimator.Size kept = turnsBefore[trim.pinTo()].minus(turnsBefore[trim.pinFrom()])
                    .plus(turnsBefore[n].minus(turnsBefore[trim.keepFrom()]));
            int pictures = picturesBefore[trim.pinTo()] - picturesBefore[trim.pinFrom()] + picturesBefore[n]
                    - picturesBefore[trim.keepFrom()] + VisionInput.count(conversation.newMessages());
            return estimator.estimate(model.id(), fixed.plus(kept).plus(trim.count() == n ? alone : afterHistory))
                    + pictures * tokensPerImage;
        }

        Fit fit(Trim trim) {
            return new Fit(trim, 0, exact(trim));
        }

        /** The estimate of the full prompt's text with {@code trim} applied. */
        private int exact(Trim trim) {
            Conversation kept = conversation.trimmed(trim);
            return estimator.estimate(model.id(), templateText(conversation) + tools.map(t -> TOOLS_PREAMBLE + t)
                    .orElse("") + PromptFlattener.flatten(kept))
                    + (VisionInput.count(kept.history()) + VisionInput.count(kept.newMessages())) * tokensPerImage;
        }

        private String templateText(Conversation c) {
            return format.map(f -> f.template(c.systemPrompt(), true))
                    .map(t -> t.systemPrompt() + t.promptPrefix() + t.promptPostfix()).orElse(c.systemPrompt());
        }
    }
}
