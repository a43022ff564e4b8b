package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.cache.CacheContents;
import io.rkllm.server.engine.contract.cache.CachedConversation;
import java.util.ArrayList;
import java.util.List;

/**
 * What one loaded model's slots hold: one {@link SlotState} per slot, and the trims of recent conversations.
 * Written on the worker thread only; {@link #held()} is read by requests being prepared.
 */
final class SlotBook {
    /** Trims remembered for conversations that lost their slot: a few recent chats are enough. */
    static final int REMEMBERED_TRIMS = 16;

    private final List<SlotState> slots = new ArrayList<>();
    private long tick;
    private volatile List<CachedConversation> remembered = List.of();

    SlotBook(int slots) {
        for (int i = 0; i < slots; i++) {
            this.slots.add(new SlotState());
        }
    }

    SlotState slot(int index) {
        return slots.get(index);
    }

    /** The first {@code count} slots as the policy sees them. */
    List<RkllmCachePolicy.SlotView> views(int count) {
        List<RkllmCachePolicy.SlotView> views = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            views.add(slots.get(i).view());
        }
        return views;
    }

    /** What the slots' caches hold now, and the trims remembered (immutable records, published by the worker). */
    CacheContents held() {
        List<CachedConversation> inSlots = new ArrayList<>(slots.size());
        for (SlotState slot : slots) {
            slot.conversation().ifPresent(inSlots::add);
        }
        return new CacheContents(inSlots, remembered);
    }

    /**
     * Remembers which messages a conversation left out, so that when it comes back after another chat took its
     * slot it is resent with the same messages left out, not trimmed again from scratch (the model would forget
     * more than it had, for no reason but the switch). Only the trim is kept, not the conversation.
     */
    void remember(CachedConversation conversation) {
        if (conversation.trim().count() == 0) {
            return;
        }
        CachedConversation trimOnly = conversation.trimOnly();
        List<CachedConversation> next = new ArrayList<>(REMEMBERED_TRIMS);
        next.add(trimOnly);
        for (CachedConversation r : remembered) {
            if (next.size() < REMEMBERED_TRIMS && !r.equals(trimOnly)) {
                next.add(r);
            }
        }
        remembered = List.copyOf(next);
    }

    int size() {
        return slots.size();
    }

    long nextTick() {
        return ++tick;
    }
}
