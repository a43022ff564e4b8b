package io.rkllm.server.pipeline;

/**
 * Token counts and times of one answer, from the runtime's own perf stats.
 *
 * @param promptTokens the whole prompt the model saw: reused from the KV cache plus prefilled now
 * @param cachedTokens reused from the KV cache
 * @param prefilledTokens processed by this run's prefill
 * @param reasoningTokens of {@code completionTokens}, those generated inside the think block
 */
public record Usage(int promptTokens, int completionTokens, int cachedTokens, int prefilledTokens,
                    double prefillMs, double generateMs, long queueMillis, long timeToFirstTokenMillis,
                    int reasoningTokens) {

    /** An answer known without running the model (a derived task answer). */
    public static final Usage NONE = new Usage(0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** A run that could not take place, answered without the model after {@code queueMillis} of waiting. */
    public static Usage withoutInference(long queueMillis) {
        return new Usage(0, 0, 0, 0, 0, 0, queueMillis, -1, 0);
    }

    /** The prompt's part alone: a warm-up's, whose one generated token is not the answer. */
    public Usage promptOnly() {
        return new Usage(promptTokens, 0, cachedTokens, prefilledTokens, prefillMs, 0, queueMillis, -1, 0);
    }

    public int totalTokens() {
        return promptTokens + completionTokens;
    }

    /**
     * This answer followed by {@code retry}, a second run on top of it: what the retry prefilled adds to the
     * prompt, its generated tokens to the completion; queue time and time to first token stay the first run's.
     */
    public Usage then(Usage retry) {
        return new Usage(promptTokens + retry.prefilledTokens, completionTokens + retry.completionTokens,
                cachedTokens, prefilledTokens + retry.prefilledTokens, prefillMs + retry.prefillMs,
                generateMs + retry.generateMs, queueMillis, timeToFirstTokenMillis,
                reasoningTokens + retry.reasoningTokens);
    }
}
