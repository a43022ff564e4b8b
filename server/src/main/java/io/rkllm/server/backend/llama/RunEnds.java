package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaContext;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.StopReason;
import io.rkllm.server.engine.contract.cache.CachedConversation;
import io.rkllm.server.engine.contract.cache.Keys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a run of the decode loop ends and what its sequence holds after: finished (its answer's conversation
 * recorded for the next prompt's reuse), failed, abandoned after a bug, or ended, postponed or emptied because the
 * shared KV cache ran out of room. On the decode loop's thread only.
 */
final class RunEnds {
    private static final Logger LOG = LoggerFactory.getLogger(RunEnds.class);

    private final String id;
    private final LlamaContext context;
    private final SlotTable slots;
    private final int chatSequences;
    private final PromptTokenizer tokenizer;
    private final ConversationKeeper keeper;
    private final LoopRuns runs;
    /** Runs that gave their cells up to wait for room, for tests. */
    private volatile int postponements;

    RunEnds(String id, LlamaContext context, SlotTable slots, int chatSequences, PromptTokenizer tokenizer,
            ConversationKeeper keeper, LoopRuns runs) {
        this.id = id;
        this.context = context;
        this.slots = slots;
        this.chatSequences = chatSequences;
        this.tokenizer = tokenizer;
        this.keeper = keeper;
        this.runs = runs;
    }

    /** How many runs so far waited for room in the shared KV cache. */
    int postponements() {
        return postponements;
    }

    /** Runs that were cancelled between two decodes end now, their cache as far as it was decoded. */
    void endCancelled() {
        boolean any = false;
        for (DecodingGeneration r : runs.active) {
            any |= r.request.cancelled().isSet();
        }
        if (!any) {
            return; // the common case, checked without a copy: this runs before every step
        }
        for (DecodingGeneration r : List.copyOf(runs.active)) {
            if (r.request.cancelled().isSet()) {
                finish(r, StopReason.CANCELLED);
            }
        }
    }

    /**
     * The run's answer is whole: its end goes out with its numbers. Bytes left of a character the answer ended inside
     * (its token limit reached between a character's bytes) are not the client's, as Ollama drops them: the cache's
     * text keeps them (as U+FFFD), and a follow-up reads again from that token.
     */
    void finish(DecodingGeneration r, StopReason reason) {
        r.slot.held.endText(r.utf8.flush());
        if (r.endToken >= 0) {
            // held undecoded, as the last of an answer: a follow-up whose template ends the answer with this token's
            // text decodes it as its first new token
            r.slot.held.sampled(r.endToken, tokenizer.text(r.endToken), true, false);
        }
        long now = System.nanoTime();
        long first = r.firstToken == 0 ? now : r.firstToken;
        GenerationStats stats = new GenerationStats((first - r.admitted) / 1e6, r.prefilled - r.keep,
                (now - first) / 1e6, r.generated);
        release(r, reason == StopReason.CANCELLED ? null : conversation(r));
        Optional<String> prefilled = r.keep == 0 && !r.request.task() && r.prefilled == r.prompt.length
                ? Optional.of(r.request.text()) : Optional.empty();
        r.request.end(new GenerationEvent.Done(reason, stats, r.keep, prefilled,
                "sequence " + r.slot.sequence));
    }

    /**
     * Ends a run after an unexpected failure: its sequence is emptied (what the cache holds is not known for sure),
     * and the run gets its end whatever else fails.
     */
    void abandon(DecodingGeneration r, String message) {
        try {
            context.kv().remove(r.slot.sequence, -1, -1);
            r.slot.truncate(0);
        } catch (RuntimeException e) {
            LOG.warn("model {}: emptying sequence {} failed: {}", id, r.slot.sequence, e.toString());
        }
        try {
            fail(r, message);
        } catch (RuntimeException e) {
            runs.active.remove(r);
            r.slot.busy = false;
            r.request.end(GenerationEvent.failed(message));
        }
    }

    void fail(DecodingGeneration r, String message) {
        fail(r, GenerationEvent.failed(message));
    }

    /** Ends a run with {@code failure}: one the client caused ({@link GenerationEvent#invalid}) or the server's. */
    void fail(DecodingGeneration r, GenerationEvent.Failed failure) {
        release(r, null);
        r.request.end(failure);
    }

    /**
     * The shared KV cache had no room for this step. Its cells go, in this order: those of the least recently used
     * idle sequence; those of the runs still reading their prompts, which wait, their requests first in line, until
     * a run ends (while others generate); else a run ends: the generating run holding the most cells at its length,
     * or, when every run is still reading and none can wait for another, the last admitted one fails.
     */
    void outOfRoom(List<DecodingGeneration> members, String why) {
        if (evictIdle()) {
            return;
        }
        List<DecodingGeneration> reading = members.stream().filter(r -> !r.generating).toList();
        boolean othersGenerate = runs.active.stream().anyMatch(r -> r.generating);
        if (!reading.isEmpty() && othersGenerate) {
            for (DecodingGeneration r : reading.reversed()) {
                postpone(r);
            }
            return;
        }
        if (othersGenerate) {
            DecodingGeneration largest = members.stream().filter(r -> r.generating)
                    .max(Comparator.comparingInt(r -> r.slot.length())).orElseThrow();
            LOG.debug("model {}: the KV cache is full ({}): sequence {} ends its answer", id, why,
                    largest.slot.sequence);
            finish(largest, StopReason.LENGTH);
            return;
        }
        DecodingGeneration last = reading.getLast();
        if (reading.size() > 1) {
            postpone(last);
            return;
        }
        fail(last, "the context of model " + id + " is full (" + why + "): the prompts of its parallel"
                + " conversations do not fit together; retry, or serve it with a longer engines.llama.context");
    }

    /** Frees the cells of the least recently used idle chat sequence; false when there is none. */
    private boolean evictIdle() {
        Optional<SlotTable.Slot> idle = slots.evictable(chatSequences);
        if (idle.isEmpty()) {
            return false;
        }
        SlotTable.Slot slot = idle.get();
        LOG.debug("model {}: the KV cache is full: sequence {} ({} tokens) emptied", id, slot.sequence, slot.length());
        keeper.save(slot);
        context.kv().remove(slot.sequence, -1, -1);
        slot.truncate(0);
        slots.holds(slot, null);
        return true;
    }

    /**
     * A run still reading its prompt gives its cells up and its request waits, first in line, for a run to end: the
     * shared cache has no room for it now.
     */
    private void postpone(DecodingGeneration r) {
        LOG.debug("model {}: the KV cache is full: sequence {} waits for a run to end", id, r.slot.sequence);
        context.kv().remove(r.slot.sequence, -1, -1);
        r.slot.truncate(0);
        runs.active.remove(r);
        r.sampler.close();
        r.slot.busy = false;
        slots.holds(r.slot, null);
        runs.postponed.addFirst(r.request);
        postponements++;
    }

    private void release(DecodingGeneration r, CachedConversation held) {
        runs.runEnded();
        runs.active.remove(r);
        r.sampler.close();
        SlotTable.Slot slot = r.slot;
        slot.busy = false;
        slot.lastUsed = slots.nextTick();
        if (r.request.task()) {
            context.kv().remove(slot.sequence, -1, -1);
            slot.truncate(0);
        }
        slots.holds(slot, held);
    }

    /** The conversation the sequence holds after a chat run, in the words the pipeline reads. */
    private static CachedConversation conversation(DecodingGeneration r) {
        ChatPrompt prompt = r.request.prompt();
        if (r.request.task()) {
            return null;
        }
        Optional<String> answer = prompt.identity().answerKey().of(r.answer.toString());
        if (answer.isEmpty()) {
            return null;
        }
        List<String> turns = new ArrayList<>(prompt.identity().trim().kept(prompt.identity().history()));
        turns.addAll(prompt.identity().newKeys());
        turns.add(answer.get());
        return new CachedConversation(prompt.setup().systemPrompt(), prompt.identity().trim(),
                Keys.digest(prompt.identity().trim().leftOut(prompt.identity().history())), turns, r.slot.length(),
                prompt.setup().tools().orElse(""));
    }
}
