package io.rkllm.server.engine.contract;

import io.rkllm.server.domain.Failure;
import java.util.Optional;

/**
 * What one generation gives its reader, in order: {@link Started}, {@link Text}..., then its {@link End}: done or
 * failed. A backend's {@link BackendModel#generate} writes the text through its {@link TokenSink} and returns the
 * end; the engine adds the start and hands each on as it comes.
 */
public sealed interface GenerationEvent {
    /** The model's worker took the generation; {@code queueMillis} it waited. */
    record Started(long queueMillis) implements GenerationEvent {
    }

    /** Whole characters of output; {@code tokens} generated so far. */
    record Text(String text, int tokens) implements GenerationEvent {
    }

    /** A generated token's log probability, before the text it adds (a run that asked for them). */
    record Logprob(TokenLogprob token) implements GenerationEvent {
    }

    /** How a generation ended: what a backend's run returns, and its reader's last event. */
    sealed interface End extends GenerationEvent permits Done, Failed {
    }

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
    record Done(StopReason reason, GenerationStats stats, int reusedTokens, Optional<String> prefilledText,
                String runtimeSettings) implements End {
    }

    /** The generation failed, or was cancelled before it produced a result; the failure is for the client. */
    record Failed(Failure failure) implements End {
    }

    /** The run could not be prepared or started, or the runtime reported an error. */
    static Failed failed(String message) {
        return new Failed(new Failure.RuntimeFailed(message));
    }

    /**
     * The request cannot run as it is, and it is the client's to change: the model's chat template refuses the
     * conversation (roles out of the order it takes, a role it does not have).
     */
    static Failed refused(String message) {
        return new Failed(Failure.InvalidRequest.of("messages", message));
    }

    /** A setting of the request, {@code param}, that the model cannot take: the client's to change. */
    static Failed invalid(String param, String message) {
        return new Failed(Failure.InvalidRequest.of(param, message));
    }

    /**
     * The prompt, counted by the model's own tokenizer, does not fit the context (the pipeline's count is an estimate).
     *
     * @param param the request's field that holds it ({@code messages}, {@code prompt})
     */
    static Failed tooLong(int promptTokens, int contextTokens, String param, String message) {
        return new Failed(new Failure.ContextTooLong(promptTokens, contextTokens, param, message));
    }
}
