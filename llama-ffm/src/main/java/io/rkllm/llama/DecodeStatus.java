package io.rkllm.llama;

/** How a {@code llama_decode} call ended when it did not fail. */
public enum DecodeStatus {
    OK,
    /**
     * The context has no room left for the batch (code 1); its positions were removed from its sequences again:
     * free cells (remove a sequence's tail) and retry.
     */
    NO_KV_SLOT,
    /** The abort check said stop (code 2); the batch's positions were removed from its sequences again. */
    ABORTED
}
