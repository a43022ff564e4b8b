package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.Usage;

/** llama-server's {@code timings} object, which its own clients and the OpenAI routes' answers carry. */
public final class TimingsJson {
    private TimingsJson() {
    }

    /** prompt_n is what this run prefilled, cache_n what it reused. */
    public static ObjectNode of(ObjectMapper mapper, Usage usage) {
        ObjectNode t = mapper.createObjectNode();
        t.put("prompt_n", usage.prefilledTokens());
        t.put("prompt_ms", round(usage.prefillMs()));
        t.put("prompt_per_second", perSecond(usage.prefilledTokens(), usage.prefillMs()));
        t.put("predicted_n", usage.completionTokens());
        t.put("predicted_ms", round(usage.generateMs()));
        t.put("predicted_per_second", perSecond(usage.completionTokens(), usage.generateMs()));
        t.put("cache_n", usage.cachedTokens());
        return t;
    }

    private static double round(double ms) {
        return Math.round(ms * 1000.0) / 1000.0;
    }

    private static double perSecond(int tokens, double ms) {
        return ms <= 0 ? 0 : Math.round(tokens / (ms / 1000.0) * 100.0) / 100.0;
    }
}
