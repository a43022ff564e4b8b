package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the conversation a sequence holds in memory ({@link SavedPrompts}) before its cells go to another, so that
 * it can be put back when it returns (llama-server's {@code --cache-ram}). On the decode loop's thread only.
 */
final class ConversationKeeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConversationKeeper.class);

    private final String id;
    private final LlamaContext context;
    private final SlotTable slots;
    private final int chatSequences;
    /** Null when none are kept: no memory given, or a library without {@code llama_state_seq_*}. */
    private final SavedPrompts saved;

    /**
     * @param savedBytes memory for conversations' KV states kept while their sequence serves another; 0, or a
     *                   library without {@code llama_state_seq_*}: none kept
     * @param chatSequences the first sequences, the ones conversations take
     */
    ConversationKeeper(String id, LlamaContext context, SlotTable slots, long savedBytes, int chatSequences) {
        this.id = id;
        this.context = context;
        this.slots = slots;
        this.chatSequences = chatSequences;
        this.saved = savedBytes > 0 && context.savesSequences() ? new SavedPrompts(savedBytes) : null;
    }

    /** The states kept, when any may be. */
    Optional<SavedPrompts> store() {
        return Optional.ofNullable(saved);
    }

    /** What the kept states hold, for the prefix cache policy. */
    List<PrefixCachePolicy.Held> views() {
        return saved == null ? List.of() : saved.views();
    }

    /** Keeps what {@code slot} holds, when it is long enough to be worth it and not kept already. */
    void save(SlotTable.Slot slot) {
        save(slot, null);
    }

    /** The same, never dropping {@code spare}, the state about to go into the sequence. */
    void save(SlotTable.Slot slot, SavedPrompts.Entry spare) {
        if (saved == null || slot.length() < SavedPrompts.MIN_TOKENS || saved.holds(slot.tokens())) {
            return;
        }
        long size = context.sequenceStateSize(slot.sequence);
        if (saved.save(slot.held.view(slot.lastUsed), size, into -> context.saveSequence(slot.sequence, into),
                slots.nextTick(), spare)) {
            LOG.debug("model {}: sequence {} ({} tokens, {} bytes) kept in memory; {} states, {} bytes", id,
                    slot.sequence, slot.length(), size, saved.size(), saved.bytes());
        }
    }

    /**
     * While the loop is idle: memory made ready for the states new conversations will have to keep before they take
     * a sequence, until {@code interrupted} says a request came; the saves then cost the copy alone, not the page
     * faults of fresh memory. Only when every chat sequence holds a conversation (a new one takes an empty sequence
     * else, and keeps nothing), for those not kept already, the least recently used first (the order {@link
     * PrefixCachePolicy} takes them in), as far as the capacity has room.
     */
    void prepare(BooleanSupplier interrupted) {
        if (saved == null) {
            return;
        }
        List<SlotTable.Slot> next = new ArrayList<>();
        for (SlotTable.Slot s : slots.free(chatSequences)) {
            if (s.length() == 0) {
                return;
            }
            if (s.length() >= SavedPrompts.MIN_TOKENS && !saved.holds(s.tokens())) {
                next.add(s);
            }
        }
        next.sort(Comparator.comparingLong(s -> s.lastUsed));
        try {
            List<Long> sizes = new ArrayList<>(next.size());
            for (SlotTable.Slot s : next) {
                sizes.add(context.sequenceStateSize(s.sequence));
            }
            saved.prepare(sizes, interrupted);
        } catch (RuntimeException e) {
            // only a head start lost: the saves allocate their memory then, as without one
            LOG.warn("model {}: memory for the next saved states could not be made ready", id, e);
        }
    }

    @Override
    public void close() {
        if (saved != null) {
            saved.close();
        }
    }
}
