package io.rkllm.server.backend.rkllm;

import io.rkllm.ffm.Model;
import io.rkllm.ffm.RkllmFunction;
import java.util.OptionalInt;

/** A native handle as the cache policy sees it. */
record FfmSlot(Model model) implements RkllmSlot {

    @Override
    public void clearKvCache(boolean keepSystemPrompt) {
        model.clearKvCache(keepSystemPrompt);
    }

    @Override
    public OptionalInt kvCacheSize() {
        return model.supports(RkllmFunction.GET_KV_CACHE_SIZE) ? OptionalInt.of(model.kvCacheSizes()[0])
                : OptionalInt.empty();
    }

    @Override
    public void setChatTemplate(String systemPrompt, String promptPrefix, String promptPostfix) {
        model.setChatTemplate(systemPrompt, promptPrefix, promptPostfix);
    }

    @Override
    public void setFunctionTools(String systemPrompt, String toolsJson, String toolResponseTag) {
        model.setFunctionTools(systemPrompt, toolsJson, toolResponseTag);
    }
}
