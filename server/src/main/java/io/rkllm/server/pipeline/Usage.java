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

    /** An answer known without running the model (a derived task answer). */
    public static final Usage NONE = new Usage(0, 0, 0, 0, 0, 0, 0, 0);

    /** A run that could not take place, answered without the model after {@code queueMillis} of waiting. */
    public static Usage withoutInference(long queueMillis) {
        return new Usage(0, 0, 0, 0, 0, 0, queueMillis, -1);
    }

    public int totalTokens() {
        return promptTokens + completionTokens;
    }
}
