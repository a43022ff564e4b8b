package io.rkllm.server.pipeline;

import io.rkllm.server.pipeline.output.OutputEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One complete answer, as every API encodes a non-streaming response from it.
 *
 * @param matchedStop the stop string that ended the answer, if one did
 */
public record Answer(String content, String reasoning, List<OutputEvent.ToolCall> toolCalls, String finishReason,
                     Usage usage, Optional<String> matchedStop) {

    public Answer {
        toolCalls = List.copyOf(toolCalls);
    }

    /** Folds a run's output events, in order, into the text parts and the tool calls. */
    public static final class Builder {
        private final StringBuilder content = new StringBuilder();
        private final StringBuilder reasoning = new StringBuilder();
        private final List<OutputEvent.ToolCall> toolCalls = new ArrayList<>();

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
                    finished.usage(), matchedStop);
        }
    }
}
