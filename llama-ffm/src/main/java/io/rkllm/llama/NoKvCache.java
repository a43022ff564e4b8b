package io.rkllm.llama;

/**
 * The KV cache of a context that has none: from v0.5.0 on, llama.cpp gives a model that attends both ways (BERT
 * embedders and rerankers) no memory at all, so each decode stands alone. Emptying it is always done; nothing can
 * be kept, copied or shifted in it.
 */
final class NoKvCache implements KvCache {
    private final KvApi api;

    NoKvCache(KvApi api) {
        this.api = api;
    }

    @Override
    public KvApi api() {
        return api;
    }

    @Override
    public boolean remove(int sequence, int from, int to) {
        return true;
    }

    @Override
    public void copy(int source, int target, int from, int to) {
        throw new UnsupportedOperationException("this model's context keeps no KV cache: nothing to copy");
    }

    @Override
    public void keepOnly(int sequence) {
        // nothing is kept between decodes
    }

    @Override
    public void shift(int sequence, int from, int to, int delta) {
        throw new UnsupportedOperationException("this model's context keeps no KV cache: nothing to shift");
    }

    @Override
    public int maxPosition(int sequence) {
        return -1;
    }

    @Override
    public boolean canShift() {
        return false;
    }

    @Override
    public void clear() {
        // nothing is kept between decodes
    }
}
