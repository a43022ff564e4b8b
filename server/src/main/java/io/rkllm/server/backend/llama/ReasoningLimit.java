package io.rkllm.server.backend.llama;

import io.rkllm.server.engine.contract.ReasoningBudget;
import java.util.function.Function;

/**
 * A run's reasoning budget in the decode loop: it counts the tokens written between the reasoning's opening and
 * closing markers and, once the budget is spent, gives the tokens of the message and the closing marker to write
 * instead of sampling, one a step, as llama-server's reasoning-budget sampler forces them; after the marker the model
 * answers. The markers are found in the answer's text (the dialect's markers are written as text). Used on the decode
 * loop's thread only.
 */
final class ReasoningLimit {
    private final ReasoningBudget budget;
    private boolean inside;
    private boolean over;
    private int spent;
    private int[] forced;
    private int next;

    ReasoningLimit(ReasoningBudget budget) {
        this.budget = budget;
        this.inside = budget.opened();
    }

    /**
     * The token to write now instead of sampling, or -1 to sample.
     *
     * @param tokenize the tokens of a text, the markers' texts read as their special tokens
     */
    int forced(Function<String, int[]> tokenize) {
        if (over || !inside) {
            return -1;
        }
        if (forced == null && spent >= budget.tokens()) {
            forced = tokenize.apply(budget.message() + budget.close());
        }
        return forced != null && next < forced.length ? forced[next++] : -1;
    }

    /** A token was written: {@code added} characters at the end of {@code answer} (none for part of a character). */
    void wrote(CharSequence answer, int added) {
        if (over) {
            return;
        }
        if (!inside) {
            inside = endsWith(answer, added, budget.open());
            return;
        }
        if (endsWith(answer, added, budget.close())) {
            over = true;
        } else if (forced == null) {
            spent++;
        }
    }

    /** Whether the text just added completes {@code marker}. */
    private static boolean endsWith(CharSequence answer, int added, String marker) {
        if (added == 0) {
            return false;
        }
        int from = Math.max(0, answer.length() - added - marker.length() + 1);
        return answer.toString().indexOf(marker, from) >= 0;
    }
}
