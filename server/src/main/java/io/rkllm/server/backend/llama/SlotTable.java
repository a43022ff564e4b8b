package io.rkllm.server.backend.llama;

import io.rkllm.server.engine.contract.cache.CacheContents;
import io.rkllm.server.engine.contract.cache.CachedConversation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What each sequence of a context holds: its tokens in order and the text they spell ({@link HeldSequence}), whether
 * a run uses it now, when it last ran, and the conversation it holds in the words
 * every backend publishes ({@link CachedConversation}). Written by the decode loop only; {@link #held()} is read
 * from any thread.
 */
final class SlotTable {
    /** Trims remembered for conversations that lost their sequence. */
    private static final int REMEMBERED_TRIMS = 16;

    private final Slot[] slots;
    private long tick;
    private volatile CacheContents published = CacheContents.NOTHING;
    private final List<CachedConversation> remembered = new ArrayList<>();

    /** One sequence. */
    static final class Slot {
        final int sequence;
        final HeldSequence held = new HeldSequence();
        long lastUsed;
        boolean busy;
        CachedConversation conversation;

        Slot(int sequence) {
            this.sequence = sequence;
        }

        /** Tokens in its cells. */
        int length() {
            return held.decoded();
        }

        /** The tokens in its cells. */
        int[] tokens() {
            return held.decodedTokens();
        }

        /** The cache was cut to its first {@code keep} cells. */
        void truncate(int keep) {
            held.truncate(keep);
        }
    }

    SlotTable(int sequences) {
        slots = new Slot[sequences];
        for (int i = 0; i < sequences; i++) {
            slots[i] = new Slot(i);
        }
    }

    Slot get(int sequence) {
        return slots[sequence];
    }

    int size() {
        return slots.length;
    }

    long nextTick() {
        return ++tick;
    }

    /** The sequences no run uses now, among the first {@code count}. */
    List<Slot> free(int count) {
        List<Slot> free = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (!slots[i].busy) {
                free.add(slots[i]);
            }
        }
        return free;
    }

    /** The least recently used sequence that holds tokens and runs nothing, among the first {@code count}. */
    Optional<Slot> evictable(int count) {
        Slot best = null;
        for (int i = 0; i < count; i++) {
            Slot s = slots[i];
            if (!s.busy && s.length() > 0 && (best == null || s.lastUsed < best.lastUsed)) {
                best = s;
            }
        }
        return Optional.ofNullable(best);
    }

    /** Records the conversation a sequence holds after a run (null: none known) and publishes what all hold. */
    void holds(Slot slot, CachedConversation conversation) {
        slot.conversation = conversation;
        if (conversation != null && conversation.trim().count() > 0) {
            CachedConversation trimOnly = conversation.trimOnly();
            remembered.remove(trimOnly);
            remembered.addFirst(trimOnly);
            while (remembered.size() > REMEMBERED_TRIMS) {
                remembered.removeLast();
            }
        }
        publish();
    }

    void publish() {
        List<CachedConversation> held = new ArrayList<>();
        for (Slot s : slots) {
            if (s.conversation != null && s.length() > 0) {
                held.add(s.conversation);
            }
        }
        published = new CacheContents(held, remembered);
    }

    CacheContents held() {
        return published;
    }
}
