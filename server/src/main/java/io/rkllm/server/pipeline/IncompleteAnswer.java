package io.rkllm.server.pipeline;

import io.rkllm.server.pipeline.output.OutputEvent;
import java.util.List;

/**
 * Whether an answer the runtime ended by itself is only reasoning: a think block, closed or not, and no content
 * or tool call after it. Runtime 1.3.0 is reported to fire FINISH at {@code </think>} (the tag swallowed) when it
 * runs with {@code enable_thinking=1}: the client would get the reasoning and an empty answer, as a normal stop.
 * Such an answer is never presented as a good one: {@link ChatRun} reports it with the finish reason
 * {@code length} (the answer was cut before the model ended it; a value every client knows) and a note, and the
 * planner does not keep it in the KV cache.
 */
final class IncompleteAnswer {
    /** The note for the client (the {@code X-RKLLM-Incomplete} header of a non-streaming response). */
    static final String NOTE = "the answer ended after its reasoning, with no content (runtime 1.3.0 ends thinking"
            + " runs at </think>: docs/runtime-abi.md)";

    private boolean reasoning;
    private boolean answer;

    /** Takes note of output events as they are sent. */
    void observe(List<OutputEvent> events) {
        for (OutputEvent event : events) {
            switch (event) {
                case OutputEvent.Reasoning r -> reasoning |= !r.text().isBlank();
                case OutputEvent.Content c -> answer |= !c.text().isBlank();
                case OutputEvent.ToolCall t -> answer = true;
                case OutputEvent.CallDelta d -> answer = true;
            }
        }
    }

    /** Reasoning came, and nothing after it. */
    boolean isReasoningOnly() {
        return reasoning && !answer;
    }

    /**
     * The same judgement on a generated text, from its cache key ({@link MessageKeys#generated}: the answer
     * without its think blocks, {@code "A:"} when nothing is left).
     */
    static boolean isReasoningOnly(String generatedKey, String generatedText) {
        return generatedKey.equals("A:") && !generatedText.isBlank();
    }
}
