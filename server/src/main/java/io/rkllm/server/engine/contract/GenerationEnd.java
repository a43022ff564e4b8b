package io.rkllm.server.engine.contract;

import java.util.Optional;

/** How a backend's generation ended. */
public sealed interface GenerationEnd {

    /**
     * The run produced a result.
     *
     * @param reason why it ended; {@link StopReason#CANCELLED} when it was aborted (the engine tells why)
     * @param stats the backend's own counts and times of this run
     * @param reusedTokens what the cache held of the conversation before the run (its policy's decision)
     * @param prefilledText the text the run prefilled whole, when the backend knows it exactly: with
     *                      {@code stats}' prefill count it calibrates the pipeline's token estimate
     * @param runtimeSettings the backend's words for the settings of this run that a log line about it should name
     *                        (RKLLM: {@code enable_thinking=true})
     */
    record Finished(StopReason reason, GenerationStats stats, int reusedTokens, Optional<String> prefilledText,
                    String runtimeSettings) implements GenerationEnd {
    }

    /** The run could not be prepared or started, or the runtime reported an error; the message is for the client. */
    record Failed(String message) implements GenerationEnd {
    }

    /**
     * The request cannot run as it is, and it is the client's to change: the model's chat template refuses the
     * conversation (roles out of the order it takes, a role it does not have).
     */
    record Refused(String message) implements GenerationEnd {
    }

    /** The prompt, counted by the model's own tokenizer, does not fit the context (the pipeline's count is an estimate). */
    record TooLong(int promptTokens, int contextTokens, String message) implements GenerationEnd {
    }
}
