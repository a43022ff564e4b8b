package io.rkllm.server.engine.contract;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Image embeddings by model and picture, so that a picture sent again (Open WebUI resends every picture of a chat
 * with every turn) is not encoded again: an encoder run costs seconds of NPU time, a lookup a copy. Bounded in
 * bytes, least recently used out first. The embeddings live outside the Java heap (one Qwen3-VL picture is 6.4 MB
 * of floats, and the server's heap is kept small); each entry has its own memory, freed when it leaves.
 * Thread-safe.
 */
public final class ImageEmbeddingCache {
    private final long capacityBytes;
    private final Map<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long usedBytes;

    private record Entry(Arena arena, MemorySegment floats) {
    }

    /** {@code capacityBytes} 0: nothing is kept. */
    public ImageEmbeddingCache(long capacityBytes) {
        this.capacityBytes = capacityBytes;
    }

    /** The embedding of {@code picture} for {@code model}, copied out; empty when not cached. */
    public synchronized Optional<float[]> get(String model, String picture) {
        Entry e = entries.get(key(model, picture));
        if (e == null) {
            return Optional.empty();
        }
        return Optional.of(e.floats().toArray(ValueLayout.JAVA_FLOAT));
    }

    public synchronized boolean contains(String model, String picture) {
        return entries.containsKey(key(model, picture));
    }

    /** Keeps a copy; the least recently used entries leave to make room. One larger than the cache is not kept. */
    public synchronized void put(String model, String picture, float[] embedding) {
        long size = (long) embedding.length * Float.BYTES;
        if (size > capacityBytes) {
            return;
        }
        String key = key(model, picture);
        remove(key);
        var it = entries.entrySet().iterator();
        while (usedBytes + size > capacityBytes && it.hasNext()) {
            Entry old = it.next().getValue();
            it.remove();
            usedBytes -= old.floats().byteSize();
            old.arena().close();
        }
        Arena arena = Arena.ofShared();
        MemorySegment floats = arena.allocate(size, Float.BYTES);
        MemorySegment.copy(embedding, 0, floats, ValueLayout.JAVA_FLOAT, 0, embedding.length);
        entries.put(key, new Entry(arena, floats));
        usedBytes += size;
    }

    /** Drops every embedding of {@code model} (its encoder changed). */
    public synchronized void forget(String model) {
        String prefix = model + "\n";
        for (String key : entries.keySet().stream().filter(k -> k.startsWith(prefix)).toList()) {
            remove(key);
        }
    }

    public synchronized long usedBytes() {
        return usedBytes;
    }

    public synchronized int size() {
        return entries.size();
    }

    private void remove(String key) {
        Entry old = entries.remove(key);
        if (old != null) {
            usedBytes -= old.floats().byteSize();
            old.arena().close();
        }
    }

    private static String key(String model, String picture) {
        return model + "\n" + picture;
    }
}
