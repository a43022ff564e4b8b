package io.rkllm.server.backend.llama;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.ToLongFunction;

/**
 * Conversations' KV states kept in memory after their sequence went to another conversation, as llama-server's
 * prompt cache in RAM ({@code --cache-ram}): when one comes back (a chat taken up again after more chats than the
 * model runs at once), its state is put back into a sequence instead of its prompt being read again, which on a
 * board's CPU takes seconds a thousand tokens.
 *
 * <p>Each state is held off the Java heap, in a block of its own ({@link StateMemory}: blocks for the next saves are
 * made ready while the model is idle, within the capacity), freed when it is dropped: the least recently used go
 * first when a new one would not fit in the capacity. A state whose tokens begin another one's is not kept twice:
 * the longer one serves both. Owned by the decode loop's thread.
 */
final class SavedPrompts implements AutoCloseable {
    /** Conversations shorter than this are read again faster than a state is worth keeping. */
    static final int MIN_TOKENS = 32;

    /** One saved state: what its sequence held (its tokens and their text), and the cells' bytes. */
    static final class Entry {
        final PrefixCachePolicy.Held held;
        final StateMemory.Block block;
        final MemorySegment state;
        long lastUsed;

        Entry(PrefixCachePolicy.Held held, StateMemory.Block block, MemorySegment state, long lastUsed) {
            this.held = held;
            this.block = block;
            this.state = state;
            this.lastUsed = lastUsed;
        }
    }

    private final long capacity;
    private final List<Entry> entries = new ArrayList<>();
    private final StateMemory memory = new StateMemory();
    private long bytes;
    private long saves;
    private long readySaves;
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
        if (size <= 0 || size + (spare == null ? 0 : spare.block.size()) > capacity) {
            return false;
        }
        int[] cells = java.util.Arrays.copyOf(held.tokens(), held.decoded());
        List<StateMemory.Block> dropped = new ArrayList<>();
        // what it continues is kept in it: a conversation saved before its last turns
        entries.removeIf(e -> {
            boolean within = e != spare && e.held.decoded() <= cells.length
                    && PrefixCachePolicy.commonPrefix(e.held.tokens(), cells) >= e.held.decoded();
            if (within) {
                drop(e, dropped);
            }
            return within;
        });
        // memory made ready counts in the capacity: saved into a ready block, the state adds nothing to it; saved
        // into other memory, it takes the place of ready blocks first, then of the least recently used states
        boolean intoReady = memory.hasFitting(size);
        boolean touched = memory.readyFor(size);
        long adding = intoReady ? 0 : size;
        if (!intoReady) {
            memory.trim(Math.max(0, capacity - bytes - size));
        }
        while (bytes + memory.readyBytes() + adding > capacity) {
            Entry oldest = null;
            for (Entry e : entries) {
                if (e != spare && (oldest == null || e.lastUsed < oldest.lastUsed)) {
                    oldest = e;
                }
            }
            if (oldest == null) {
                dropped.forEach(StateMemory.Block::free);
                return false; // only the spare left, and no room beside it
            }
            entries.remove(oldest);
            drop(oldest, dropped);
        }
        Optional<StateMemory.Block> taken = memory.take(size, dropped, capacity - bytes - memory.readyBytes());
        if (taken.isEmpty()) {
            return false;
        }
        StateMemory.Block block = taken.get();
        long written;
        try {
            written = save.applyAsLong(block.memory().asSlice(0, size));
        } catch (RuntimeException | Error e) {
            block.free();
            throw e;
        }
        if (written <= 0 || written > size) {
            block.free();
            return false;
        }
        entries.add(new Entry(held, block, block.memory().asSlice(0, written), now));
        bytes += block.size();
        memory.trim(Math.max(0, capacity - bytes));
        saves++;
        readySaves += touched ? 1 : 0;
        return true;
    }

    /**
     * While the loop is idle: memory made ready for states of {@code sizes} bytes, the next ones to be saved first,
     * as far as the capacity has room beside the states kept, until {@code interrupted} (a request came) says to stop.
     */
    void prepare(List<Long> sizes, BooleanSupplier interrupted) {
        memory.prepare(sizes, capacity - bytes, interrupted);
    }

    /** The bytes made ready for the next saves. */
    long readyBytes() {
        return memory.readyBytes();
    }

    /** A state leaves: its block goes to {@code dropped}, for the save under way to take or free. */
    private void drop(Entry e, List<StateMemory.Block> dropped) {
        bytes -= e.block.size();
        dropped.add(e.block);
    }

    private void free(Entry e) {
        bytes -= e.block.size();
        e.block.free();
    }

    /** The bytes the states take now (their blocks': a state saved into a ready block may leave some unused). */
    long bytes() {
        return bytes;
    }

    int size() {
        return entries.size();
    }

    long saves() {
        return saves;
    }

    /** Saves written into memory made ready before, all its pages touched while the loop was idle. */
    long readySaves() {
        return readySaves;
    }

    long restores() {
        return restores;
    }

    @Override
    public void close() {
        entries.forEach(this::free);
        entries.clear();
        memory.close();
    }
}
