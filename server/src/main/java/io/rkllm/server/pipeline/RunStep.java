package io.rkllm.server.pipeline;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import java.util.List;
import java.util.Optional;

/** What the route writes next. */
public sealed interface RunStep {
    /**
     * Classified output to send now.
     *
     * @param logprobs the log probabilities of the tokens that made these events, when the request asked for them
     *                 and the model's engine has them (llama.cpp); sent with the step's last event
     */
    record Output(List<OutputEvent> events, List<TokenProbability> logprobs) implements RunStep {
        public Output {
            events = List.copyOf(events);
            logprobs = List.copyOf(logprobs);
        }

        public Output(List<OutputEvent> events) {
            this(events, List.of());
        }
    }

    /** Nothing happened for a keep-alive period: a heartbeat is due (and reveals a dead client). */
    record KeepAlive() implements RunStep {
    }

    /**
     * The answer is complete.
     *
     * @param check how the answer met the request's contract (JSON, a tool call), when it had one:
     *              {@code valid}, {@code repaired}, {@code retried}, {@code retried_repaired}
     * @param incomplete why the answer is not whole although the runtime ended it (finish reason
     *                   {@code length}): {@link IncompleteAnswer#NOTE}
     */
    record Finished(String finishReason, Usage usage, Optional<String> check, Optional<String> incomplete)
            implements RunStep {
        public Finished(String finishReason, Usage usage) {
            this(finishReason, usage, Optional.empty());
        }

        public Finished(String finishReason, Usage usage, Optional<String> check) {
            this(finishReason, usage, check, Optional.empty());
        }
    }

    /** The generation failed; the failure is for the client. */
    record Failed(Failure failure) implements RunStep {
    }
}
