package io.rkllm.server.backend.llama;

import io.rkllm.llama.KvCache;
import io.rkllm.llama.LlamaContext;
import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.Sampler;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.StopReason;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives waiting requests a sequence, in their order: the free chat sequence sharing the longest prefix with the
 * prompt ({@link PrefixCachePolicy}), or a conversation kept in memory put back, or the start of another sequence
 * copied; the cache is cut where the prompt first differs and only the rest is decoded. A background task runs in
 * the spare sequence, from the best chat sequence's prefix. On the decode loop's thread only.
 */
final class Admissions {
    private static final Logger LOG = LoggerFactory.getLogger(Admissions.class);

    private final String id;
    private final LlamaModel model;
    private final LlamaContext context;
    private final SlotTable slots;
    private final int chatSequences;
    /** The spare sequence, for background tasks. */
    private final int scratch;
    private final int sequenceContext;
    private final PrefixCachePolicy policy;
    private final PromptTokenizer tokenizer;
    private final ConversationKeeper keeper;
    private final LoopRuns runs;

    /**
     * @param chatSequences sequences for conversations (the context has one more, for background tasks)
     * @param sequenceContext the most tokens one sequence may hold (the model's served context)
     */
    Admissions(String id, LlamaModel model, LlamaContext context, SlotTable slots, int chatSequences,
               int sequenceContext, PromptTokenizer tokenizer, ConversationKeeper keeper, LoopRuns runs) {
        this.id = id;
        this.model = model;
        this.context = context;
        this.slots = slots;
        this.chatSequences = chatSequences;
        this.scratch = chatSequences;
        this.sequenceContext = sequenceContext;
        this.policy = new PrefixCachePolicy(context.cachePerSequence() ? PrefixCachePolicy.OWN_CACHES_COPY_GAIN : 1);
        this.tokenizer = tokenizer;
        this.keeper = keeper;
        this.runs = runs;
    }

    /** Gives waiting requests the free sequences, in their order; a request with no sequence free waits. */
    void admitWaiting() {
        for (Iterator<SubmittedGeneration> it = runs.postponed.iterator(); it.hasNext(); ) {
            SubmittedGeneration request = it.next();
            if (request.cancelled().isSet()) {
                it.remove();
                endCancelled(request);
            }
        }
        for (Iterator<SubmittedGeneration> it = runs.waiting.iterator(); it.hasNext(); ) {
            SubmittedGeneration request = it.next();
            if (request.cancelled().isSet()) {
                it.remove();
                endCancelled(request);
                continue;
            }
            boolean admitted;
            try {
                admitted = admit(request);
            } catch (RuntimeException e) {
                LOG.warn("model {}: preparing the run failed: {}", id, e.toString());
                admitted = true;
                request.end(GenerationEvent.failed("preparing the run failed: "
                        + e.getMessage()));
            }
            if (admitted) {
                it.remove();
            }
        }
    }

    private static void endCancelled(SubmittedGeneration request) {
        request.end(new GenerationEvent.Done(StopReason.CANCELLED, GenerationStats.NONE, 0, Optional.empty(), ""));
    }

    /** Starts a request in a sequence; false when none is free for it now. */
    private boolean admit(SubmittedGeneration request) {
        if (request.task() && slots.get(scratch).busy
                || !request.task() && slots.free(chatSequences).isEmpty()) {
            return false;
        }
        int[] whole = tokenizer.whole(request.text());
        if (whole.length == 0) {
            request.end(GenerationEvent.failed("the prompt is empty"));
            return true;
        }
        List<SlotTable.Slot> free = slots.free(chatSequences);
        PrefixCachePolicy.Decision decision = request.task() ? null : policy.decide(free.stream()
                .map(s -> s.held.view(s.lastUsed)).toList(), keeper.views(),
                new PrefixCachePolicy.Prompt(request.text(), whole), tokenizer);
        int[] prompt = decision == null ? whole : decision.tokens();
        if (prompt.length >= sequenceContext) {
            boolean raw = request.prompt().setup().raw().isPresent();
            request.end(GenerationEvent.tooLong(prompt.length, sequenceContext, raw ? "prompt" : "messages",
                    "the prompt is " + prompt.length + " tokens long; model " + id + " is served with a context of "
                            + sequenceContext + " tokens: shorten " + (raw ? "the prompt"
                            : "the conversation, or leave out tools or documents")));
            return true;
        }
        // the sampler first: one that cannot be made (a grammar llama.cpp refuses) fails the request before any
        // sequence is marked busy or cut
        Sampler sampler = sampler(request, prompt);
        SlotTable.Slot slot;
        int keep;
        Spelling spelling;
        KvCache kv = context.kv();
        if (request.task()) {
            slot = slots.get(scratch);
            keep = startTask(kv, slot, prompt);
            spelling = Spelling.blank(prompt.length);
        } else if (decision.restores()) {
            slot = free.get(decision.cache().slot());
            SavedPrompts saved = keeper.store().orElseThrow();
            SavedPrompts.Entry entry = saved.get(decision.source());
            keep = decision.keep();
            spelling = spell(prompt, entry.held.spelling(), decision.shared());
            keeper.save(slot, entry);
            kv.remove(slot.sequence, -1, -1);
            if (!context.restoreSequence(slot.sequence, entry.state)) {
                LOG.warn("model {}: llama.cpp refused a saved state for sequence {}: its prompt is read again", id,
                        slot.sequence);
                kv.remove(slot.sequence, -1, -1);
                keep = 0;
            } else if (keep < entry.held.decoded() && !kv.remove(slot.sequence, keep, -1)) {
                kv.remove(slot.sequence, -1, -1);
                keep = 0;
            } else {
                saved.restored(entry, slots.nextTick());
            }
        } else {
            slot = free.get(decision.cache().slot());
            SlotTable.Slot source = free.get(decision.source());
            spelling = spell(prompt, source.held.spelling(), decision.shared());
            keep = decision.keep();
            if (decision.copies()) {
                keeper.save(slot);
                kv.remove(slot.sequence, -1, -1);
                kv.copy(source.sequence, slot.sequence, 0, keep);
            } else if (keep < slot.length()) {
                if (2 * keep < slot.length()) {
                    keeper.save(slot); // another conversation takes the sequence: this one is kept for its return
                }
                if (!kv.remove(slot.sequence, keep, -1)) {
                    // a model whose cache cannot lose a tail (recurrent layers) starts over
                    kv.remove(slot.sequence, -1, -1);
                    keep = 0;
                }
            }
        }
        slot.held.restart(prompt, keep, spelling);
        slot.busy = true;
        slot.conversation = null;
        slots.publish();
        runs.active.add(new DecodingGeneration(request, slot, prompt, spelling, keep, sampler));
        LOG.debug("model {}: sequence {} reuses {} of {} prompt tokens{}", id, slot.sequence, keep, prompt.length,
                decision != null && decision.copies() ? " (copied from sequence " + free.get(decision.source())
                        .sequence + ")" : decision != null && decision.restores() ? " (a state saved in memory)" : "");
        return true;
    }

    /** The run's sampler, with the prompt's last tokens seen by its penalties (a grammar's chain takes none). */
    private Sampler sampler(SubmittedGeneration request, int[] prompt) {
        boolean grammarNow = request.grammar().isPresent() && request.grammar().get().after().isEmpty();
        Sampler sampler;
        if (grammarNow) {
            Optional<Sampler> constrained = GrammarSampler.of(model, request.sampling(), request.grammar().get(), id);
            grammarNow = constrained.isPresent();
            sampler = constrained.orElseGet(() -> model.newSampler(request.sampling()));
        } else {
            sampler = model.newSampler(request.sampling());
        }
        try {
            if (request.sampling().penalises() && !grammarNow) { // a grammar's chain takes only what it sampled
                for (int i = Math.max(0, prompt.length - request.sampling().penaltyLastN()); i < prompt.length; i++) {
                    sampler.accept(prompt[i]);
                }
            }
        } catch (RuntimeException e) {
            sampler.close();
            throw e;
        }
        return sampler;
    }

    /** The prompt's text token by token: as far as the source spells it cleanly, its spelling; then the pieces. */
    private Spelling spell(int[] prompt, Spelling source, int shared) {
        int known = Math.min(shared, source.tokens());
        while (known > 0 && source.cut(known) < 0) {
            known--;
        }
        return Spelling.of(prompt, source, known, tokenizer::piece);
    }

    /** The spare sequence, emptied, then sharing the cells of the longest common prefix of any chat sequence. */
    private int startTask(KvCache kv, SlotTable.Slot slot, int[] prompt) {
        kv.remove(slot.sequence, -1, -1);
        slot.truncate(0);
        SlotTable.Slot best = null;
        int shared = 0;
        for (int i = 0; i < chatSequences; i++) {
            int common = PrefixCachePolicy.commonPrefix(slots.get(i).tokens(), prompt);
            if (common > shared) {
                best = slots.get(i);
                shared = common;
            }
        }
        int keep = Math.min(shared, prompt.length - 1);
        if (best != null && keep > 0) {
            kv.copy(best.sequence, slot.sequence, 0, keep);
            return keep;
        }
        return 0;
    }
}
