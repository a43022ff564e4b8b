package io.rkllm.server.engine.contract;

import java.util.List;
import java.util.Objects;

/**
 * How far a run's reasoning may go, in the dialect's words: an engine that picks each token itself
 * ({@link RuntimeInfo#steersEachToken()}) counts the tokens between the opening and the closing marker and, when
 * {@code tokens} are spent, writes {@code message} and the closing marker instead of sampling (llama-server's
 * reasoning budget), after which the model answers.
 *
 * @param tokens the tokens the reasoning may take; 0 closes it at once
 * @param open the marker the reasoning starts after
 * @param close the marker that ends it
 * @param opened the prompt already opened the reasoning (its template's generation prompt ends with the marker)
 * @param message text written into the reasoning before it is closed (as text: no special token); empty for none
 * @param alsoEndedBy markers that end the reasoning without its closing marker (the tool calls of a dialect whose
 *                    calls end it): nothing is counted or written after them
 */
public record ReasoningBudget(int tokens, String open, String close, boolean opened, String message,
                              List<String> alsoEndedBy) {
    public ReasoningBudget {
        if (tokens < 0) {
            throw new IllegalArgumentException("a reasoning budget of " + tokens + " tokens");
        }
        Objects.requireNonNull(open, "open");
        Objects.requireNonNull(close, "close");
        Objects.requireNonNull(message, "message");
        alsoEndedBy = List.copyOf(alsoEndedBy);
    }
}
