package io.rkllm.server.backend.llama;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Native memory for the KV states {@link SavedPrompts} keeps, in blocks, some of them made ready ahead.
 *
 * <p>Why ready ahead: a state saved into fresh memory pays the kernel's page faults on every page it writes (about
 * 6 ms for a 400-token conversation's 10 MB on the project's VM), and a save is on the way of the first token of the
 * conversation taking the sequence. Saved into a block whose pages were touched before, it costs the copy alone.
 * Ready blocks are touched while the decode loop is idle, a megabyte at a time, so that a request that arrives
 * meanwhile waits one megabyte's faults at most. The block of a state dropped to make room is as good: its pages are
 * there, so a save takes it before new memory.
 *
 * <p>Why malloc's memory and confined arenas: {@code Arena.allocate} zeroes what llama.cpp writes over at once (a
 * pass more over the memory), and a shared arena's close (a state dropped to make room, on the way of a first token
 * too) makes every Java thread stop for a handshake. Blocks are made, written, read and freed on the decode loop's
 * thread only.
 */
final class StateMemory implements AutoCloseable {
    /** How much of a ready block is touched between two looks at whether a request came. */
    static final long STRIDE = 1L << 20;
    /** What a ready block's size is rounded up to (and the slack a block may have beyond a state's size). */
    static final long GRAIN = 64L << 10;

    /** A block: its memory, freed when its arena is closed. */
    record Block(Arena arena, MemorySegment memory) {
        long size() {
            return memory.byteSize();
        }

        void free() {
            arena.close();
        }
    }

    /** A block made ready, and how much of it is touched so far. */
    private static final class Ready {
        final Block block;
        long touched;

        Ready(Block block) {
            this.block = block;
        }
    }

    private final MethodHandle malloc;
    private final MethodHandle free;
    private List<Ready> ready = new ArrayList<>();

    StateMemory() {
        Linker linker = Linker.nativeLinker();
        this.malloc = linker.downcallHandle(linker.defaultLookup().find("malloc").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        this.free = linker.downcallHandle(linker.defaultLookup().find("free").orElseThrow(),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
    }

    /**
     * A block for a state of {@code size} bytes: a ready one that fits (the one touched furthest first), else one of
     * {@code dropped} (the blocks of states just dropped) that fits within {@code room} bytes, else new memory; empty
     * when the system has none. The dropped blocks it does not take are freed.
     */
    Optional<Block> take(long size, List<Block> dropped, long room) {
        Ready best = null;
        for (Ready r : ready) {
            if (fits(r.block, size) && (best == null || r.touched > best.touched)) {
                best = r;
            }
        }
        Block taken = null;
        if (best != null) {
            ready.remove(best);
            taken = best.block;
        }
        for (Block b : dropped) {
            if (taken == null && fits(b, size) && b.size() <= room) {
                taken = b;
            } else {
                b.free();
            }
        }
        return taken != null ? Optional.of(taken) : allocate(size);
    }

    /** Whether {@link #take} gives a ready block for a state of {@code size} bytes, touched or not. */
    boolean hasFitting(long size) {
        return ready.stream().anyMatch(r -> fits(r.block, size));
    }

    /** Whether {@link #take} gives a block for a state of {@code size} bytes whose pages are all touched already. */
    boolean readyFor(long size) {
        return ready.stream().anyMatch(r -> fits(r.block, size) && r.touched == r.block.size());
    }

    /**
     * Makes blocks ready for states of {@code sizes} bytes, in order, as far as their blocks take {@code budget} bytes
     * at most, touching their pages until {@code interrupted} says to stop (it goes on at the next call); ready blocks
     * that fit none of them are freed.
     */
    void prepare(List<Long> sizes, long budget, BooleanSupplier interrupted) {
        List<Ready> unmatched = new ArrayList<>(ready);
        List<Ready> wanted = new ArrayList<>();
        List<Long> missing = new ArrayList<>();
        long total = 0;
        for (long size : sizes) {
            Ready match = unmatched.stream().filter(r -> fits(r.block, size)).findFirst().orElse(null);
            long cost = match != null ? match.block.size() : readySize(size);
            if (size <= 0 || total + cost > budget) {
                continue;
            }
            total += cost;
            if (match != null) {
                unmatched.remove(match);
                wanted.add(match);
            } else {
                missing.add(size);
            }
        }
        unmatched.forEach(r -> r.block.free());
        ready = wanted;
        for (long size : missing) {
            Optional<Block> block = allocate(readySize(size));
            if (block.isEmpty()) {
                break;
            }
            ready.add(new Ready(block.get()));
        }
        for (Ready r : ready) {
            while (r.touched < r.block.size()) {
                if (interrupted.getAsBoolean()) {
                    return;
                }
                long length = Math.min(STRIDE, r.block.size() - r.touched);
                r.block.memory().asSlice(r.touched, length).fill((byte) 0);
                r.touched += length;
            }
        }
    }

    /**
     * The size of the block made ready for a state of {@code size} bytes: an eighth more (a conversation that goes on
     * in its sequence meanwhile still fits), in whole grains.
     */
    static long readySize(long size) {
        return (size + size / 8 + GRAIN - 1) / GRAIN * GRAIN;
    }

    /** Frees ready blocks, the last made first, until at most {@code keep} bytes are left in them. */
    void trim(long keep) {
        while (!ready.isEmpty() && readyBytes() > keep) {
            ready.removeLast().block.free();
        }
    }

    /** The bytes of the ready blocks. */
    long readyBytes() {
        long bytes = 0;
        for (Ready r : ready) {
            bytes += r.block.size();
        }
        return bytes;
    }

    /** Whether a state of {@code size} bytes goes into {@code block}: it holds it and wastes little of itself. */
    private static boolean fits(Block block, long size) {
        return block.size() >= size && block.size() <= size + size / 4 + GRAIN;
    }

    private Optional<Block> allocate(long size) {
        MemorySegment raw;
        try {
            raw = (MemorySegment) malloc.invokeExact(size);
        } catch (Throwable t) {
            throw new IllegalStateException("malloc failed", t);
        }
        if (raw.equals(MemorySegment.NULL)) {
            return Optional.empty();
        }
        Arena arena = null;
        try {
            arena = Arena.ofConfined();
            return Optional.of(new Block(arena, raw.reinterpret(size, arena, this::release)));
        } catch (RuntimeException | Error e) {
            if (arena != null) {
                arena.close();
            }
            release(raw); // the arena never held it
            throw e;
        }
    }

    private void release(MemorySegment memory) {
        try {
            free.invokeExact(memory);
        } catch (Throwable t) {
            throw new IllegalStateException("free failed", t);
        }
    }

    @Override
    public void close() {
        ready.forEach(r -> r.block.free());
        ready.clear();
    }
}
