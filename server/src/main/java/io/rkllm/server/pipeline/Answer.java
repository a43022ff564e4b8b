package io.rkllm.server.pipeline;

import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One complete answer, as every API encodes a non-streaming response from it.
 *
 * @param matchedStop the stop string that ended the answer, if one did
 * @param logprobs the log probabilities of the answer's tokens, when the request asked for them and the model's
 *                 engine has them; empty otherwise
 */
public record Answer(String content, String reasoning, List<OutputEvent.ToolCall> toolCalls, String finishReason,
                     Usage usage, Optional<String> matchedStop, List<TokenProbability> logprobs) {

    public Answer {
        toolCalls = List.copyOf(toolCalls);
        logprobs = List.copyOf(logprobs);
    }

    /** Folds a run's output events, in order, into the text parts and the tool calls. */
    public static final class Builder {
        private final StringBuilder content = new StringBuilder();
        private final StringBuilder reasoning = new StringBuilder();
        private final List<OutputEvent.ToolCall> toolCalls = new ArrayList<>();
        private final List<TokenProbability> logprobs = new ArrayList<>();

        /** A step's events and the log probabilities of their tokens. */
        public void add(RunStep.Output step) {
            add(step.events());
            logprobs.addAll(step.logprobs());
        }

        public void add(List<OutputEvent> events) {
            for (OutputEvent event : events) {
                switch (event) {
                    case OutputEvent.Content c -> content.append(c.text());
                    case OutputEvent.Reasoning r -> reasoning.append(r.text());
                    case OutputEvent.ToolCall t -> toolCalls.add(t);
                    case OutputEvent.CallDelta d -> {
                        // the call comes whole as well
                    }
                }
            }
        }

        public Answer build(RunStep.Finished finished, Optional<String> matchedStop) {
            return new Answer(content.toString(), reasoning.toString(), toolCalls, finished.finishReason(),
                    finished.usage(), matchedStop, logprobs);
        }
    }
}
