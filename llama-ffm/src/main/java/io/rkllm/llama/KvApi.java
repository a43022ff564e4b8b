package io.rkllm.llama;

/**
 * The generations of llama.cpp's per-sequence KV cache calls, found from the library's exports. The binding
 * offers all of them as one {@link KvCache}.
 */
public enum KvApi {
    /** {@code llama_kv_cache_seq_rm(ctx, ...)} and siblings: builds before March 2025. */
    KV_CACHE("llama_kv_cache_"),
    /** {@code llama_kv_self_seq_rm(ctx, ...)}: builds from March 2025 to mid-2025 (b4916 among them). */
    KV_SELF("llama_kv_self_"),
    /** {@code llama_memory_seq_rm(llama_get_memory(ctx), ...)}: builds from mid-2025 on. */
    MEMORY("llama_memory_");

    private final String prefix;

    KvApi(String prefix) {
        this.prefix = prefix;
    }

    /** The symbol prefix of the generation's functions. */
    public String prefix() {
        return prefix;
    }
}
