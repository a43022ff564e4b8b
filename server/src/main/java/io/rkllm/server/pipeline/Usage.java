package io.rkllm.server.pipeline;

/**
 * Token counts and times of one answer, from the runtime's own perf stats.
 *
 * @param promptTokens the whole prompt the model saw: reused from the KV cache plus prefilled now
 * @param cachedTokens reused from the KV cache
 * @param prefilledTokens processed by this run's prefill
 */
public record Usage(int promptTokens, int completionTokens, int cachedTokens, int prefilledTokens,
                    double prefillMs, double generateMs, long queueMillis, long timeToFirstTokenMillis) {

    public int totalTokens() {
        return promptTokens + completionTokens;
    }
}
