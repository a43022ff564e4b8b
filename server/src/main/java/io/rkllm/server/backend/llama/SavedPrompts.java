package io.rkllm.server.backend.llama;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Conversations' KV states kept in memory after their sequence went to another conversation, as llama-server's
 * prompt cache in RAM ({@code --cache-ram}): when one comes back (a chat taken up again after more chats than the
 * model runs at once), its state is put back into a sequence instead of its prompt being read again, which on a
 * board's CPU takes seconds a thousand tokens.
 *
 * <p>Each state is held off the Java heap, in an arena of its own, freed when it is dropped: the least recently
 * used go first when a new one would not fit in the capacity. A state whose tokens begin another one's is not kept
 * twice: the longer one serves both. Owned by the decode loop's thread.
 */
final class SavedPrompts implements AutoCloseable {
    /** Conversations shorter than this are read again faster than a state is worth keeping. */
    static final int MIN_TOKENS = 32;

    /** One saved state: what its sequence held (its tokens and their text), and the cells' bytes. */
    static final class Entry {
        final PrefixCachePolicy.Held held;
        final Arena arena;
        final MemorySegment state;
        long lastUsed;

        Entry(PrefixCachePolicy.Held held, Arena arena, MemorySegment state, long lastUsed) {
            this.held = held;
            this.arena = arena;
            this.state = state;
            this.lastUsed = lastUsed;
        }
    }

    private final long capacity;
    private final List<Entry> entries = new ArrayList<>();
    private long bytes;
    private long saves;
    private long restores;

    /** @param capacity the bytes the states may take together */
    SavedPrompts(long capacity) {
        this.capacity = capacity;
    }

    /** What each state holds, as the cache policy reads it (its index is the entry's). */
    List<PrefixCachePolicy.Held> views() {
        List<PrefixCachePolicy.Held> views = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            views.add(e.held);
        }
        return views;
    }

    Entry get(int index) {
        return entries.get(index);
    }

    /** A state was put back into a sequence. */
    void restored(Entry entry, long now) {
        entry.lastUsed = now;
        restores++;
    }

    /** Whether a state holds these cells already: the same tokens, or more that begin with them. */
    boolean holds(int[] cells) {
        for (Entry e : entries) {
            if (e.held.decoded() >= cells.length
                    && PrefixCachePolicy.commonPrefix(e.held.tokens(), cells) >= cells.length) {
                return true;
            }
        }
        return false;
    }

    /**
     * Keeps a sequence's state: {@code size} bytes, which {@code save} writes into the segment it is given
     * (returning the bytes written, 0 when it could not). Older states go to make room; a state larger than the
     * capacity is not kept. Returns whether it was kept.
     */
    boolean save(PrefixCachePolicy.Held held, long size, ToLongFunction<MemorySegment> save, long now) {
        return save(held, size, save, now, null);
    }

    /** The same, never dropping {@code spare} (the state about to be put back into the sequence saved now). */
    boolean save(PrefixCachePolicy.Held held, long size, ToLongFunction<MemorySegment> save, long now, Entry spare) {
        if (size <= 0 || size + (spare == null ? 0 : spare.state.byteSize()) > capacity) {
            return false;
        }
        int[] cells = java.util.Arrays.copyOf(held.tokens(), held.decoded());
        // what it continues is kept in it: a conversation saved before its last turns
        entries.removeIf(e -> {
            boolean within = e != spare && e.held.decoded() <= cells.length
                    && PrefixCachePolicy.commonPrefix(e.held.tokens(), cells) >= e.held.decoded();
            if (within) {
                free(e);
            }
            return within;
        });
        while (bytes + size > capacity) {
            Entry oldest = null;
            for (Entry e : entries) {
                if (e != spare && (oldest == null || e.lastUsed < oldest.lastUsed)) {
                    oldest = e;
                }
            }
            if (oldest == null) {
                return false; // only the spare left, and no room beside it
            }
            entries.remove(oldest);
            free(oldest);
        }
        Arena arena = Arena.ofShared();
        try {
            MemorySegment state = arena.allocate(size, 64);
            long written = save.applyAsLong(state);
            if (written <= 0 || written > size) {
                arena.close();
                return false;
            }
            entries.add(new Entry(held, arena, state.asSlice(0, written), now));
            bytes += written;
            saves++;
            return true;
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    private void free(Entry e) {
        bytes -= e.state.byteSize();
        e.arena.close();
    }

    /** The bytes the states take now. */
    long bytes() {
        return bytes;
    }

    int size() {
        return entries.size();
    }

    long saves() {
        return saves;
    }

    long restores() {
        return restores;
    }

    @Override
    public void close() {
        entries.forEach(this::free);
        entries.clear();
    }
}
