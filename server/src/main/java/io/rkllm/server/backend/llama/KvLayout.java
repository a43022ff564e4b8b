package io.rkllm.server.backend.llama;

import java.util.Locale;

/**
 * How a chat model's conversations hold their KV cells ({@code engines.llama.kv_cache}): a cache each (one more for
 * the background tasks), as llama-server's slots have, or one cache they all share.
 *
 * <p>In a shared cache every token's attention runs over every cell in use, those of the other conversations too
 * (masked out): the flash-attention kernel checks each one, about a nanosecond a cell for every head of every layer.
 * With 2,000 cells of idle conversations cached, a 127M-parameter model's decode lost a third of its speed and its
 * prefill a quarter against llama-server (docs/performance.md); on a board's 1.5B model with a 32k cache full of
 * earlier chats, seconds of a long prompt's prefill. A cache each costs {@code parallel + 1} times the memory of one,
 * so {@code auto} takes it only where it costs no more memory than was meant: with {@code engines.llama.context} set,
 * when the caches fit in the memory budget; with the model's default context, when the cells one shared cache would
 * have, split among the caches, still give each at least {@link #AUTO_MIN_CONTEXT} tokens (or the model's own, when
 * shorter), as llama-server splits its context among its slots. Otherwise one shared cache, as before.
 *
 * @param mode              what the configuration asks for
 * @param memoryBytes       the machine's memory (0: unknown, which {@code auto} takes as "share")
 * @param configuredContext {@code engines.llama.context} (0: each model's default)
 */
public record KvLayout(Mode mode, long memoryBytes, int configuredContext) {
    /** {@code auto} gives each conversation a cache of its own only with at least this context (or the model's own). */
    static final int AUTO_MIN_CONTEXT = 8192;

    public enum Mode {
        AUTO, SHARED, PER_CONVERSATION;

        /** The configuration's word for it ({@code auto}, {@code shared}, {@code per_conversation}). */
        public static Mode of(String value) {
            return Mode.valueOf(value.strip().toUpperCase(Locale.ROOT));
        }
    }

    /** Always one shared cache, whatever the memory (tools that do not know the machine's). */
    public static final KvLayout SHARED = new KvLayout(Mode.SHARED, 0, 0);

    public KvLayout {
        if (memoryBytes < 0 || configuredContext < 0) {
            throw new IllegalArgumentException("memory " + memoryBytes + ", context " + configuredContext);
        }
    }

    public static KvLayout of(String mode, long memoryBytes, int configuredContext) {
        return new KvLayout(Mode.of(mode), memoryBytes, configuredContext);
    }

    /**
     * Whether each of {@code parallel} conversations (and the tasks) gets a cache of {@code context} cells, for a model
     * trained on {@code trained} tokens: always for {@code per_conversation}, never for {@code shared}; for
     * {@code auto} when the caches fit in the memory budget and, the context being the model's default, take no more
     * cells than one shared cache would.
     */
    public boolean perConversation(long kvBytesPerToken, int context, int parallel, long fileBytes, int trained) {
        return switch (mode) {
            case SHARED -> false;
            case PER_CONVERSATION -> true;
            case AUTO -> memoryBytes > 0 && kvBytesPerToken > 0
                    && kvBytesPerToken * context * KvMemory.caches(parallel) <= room(fileBytes)
                    && (configuredContext > 0 || (long) context * KvMemory.caches(parallel)
                    <= KvMemory.sharedContext(trained, kvBytesPerToken, fileBytes, memoryBytes));
        };
    }

    /** The bytes the KV caches may take: the budget's share of the memory less the weights and compute buffers. */
    long room(long fileBytes) {
        return (long) (memoryBytes * KvMemory.BUDGET_SHARE) - fileBytes - KvMemory.computeBytes(fileBytes);
    }
}
