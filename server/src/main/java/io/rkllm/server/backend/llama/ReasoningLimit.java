package io.rkllm.server.backend.llama;

import io.rkllm.server.engine.contract.ReasoningBudget;

/**
 * A run's reasoning budget in the decode loop: it counts the tokens written between the reasoning's opening and
 * closing markers and, once the budget is spent, gives the tokens of the message and the closing marker to write
 * instead of sampling, one a step, as llama-server's reasoning-budget sampler forces them; after the marker the model
 * answers. The markers are found in the answer's text (the dialect's markers are written as text). An answer that
 * does not start with the opening marker never reasons, and one that reaches a marker ending the reasoning otherwise
 * (a call, for a dialect whose calls end it) is left alone from there. Used on the decode loop's thread only.
 */
final class ReasoningLimit {
    /** The tokens of a text, its special tokens' texts read as those tokens or not. */
    @FunctionalInterface
    interface Tokenizer {
        int[] tokens(String text, boolean special);
    }

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

    /** The token to write now instead of sampling, or -1 to sample. */
    int forced(Tokenizer tokenizer) {
        if (over || !inside) {
            return -1;
        }
        if (forced == null && spent >= budget.tokens()) {
            // the client's message is text, whatever it holds; the marker is the model's own (a special token)
            int[] message = budget.message().isEmpty() ? new int[0] : tokenizer.tokens(budget.message(), false);
            int[] close = tokenizer.tokens(budget.close(), true);
            forced = new int[message.length + close.length];
            System.arraycopy(message, 0, forced, 0, message.length);
            System.arraycopy(close, 0, forced, message.length, close.length);
        }
        return forced != null && next < forced.length ? forced[next++] : -1;
    }

    /** A token was written: {@code added} characters at the end of {@code answer} (none for part of a character). */
    void wrote(CharSequence answer, int added) {
        if (over) {
            return;
        }
        if (!inside) {
            String start = answer.toString().stripLeading();
            inside = start.startsWith(budget.open());
            // nothing but the start of the marker so far: it may still come
            over = !inside && !budget.open().startsWith(start);
            return;
        }
        if (completes(answer, added, budget.close())
                || budget.alsoEndedBy().stream().anyMatch(marker -> completes(answer, added, marker))) {
            over = true;
        } else if (forced == null) {
            spent++;
        }
    }

    /** Whether the text just added completes {@code marker}: only the answer's tail is looked at. */
    private static boolean completes(CharSequence answer, int added, String marker) {
        if (added == 0) {
            return false;
        }
        int from = Math.max(0, answer.length() - added - marker.length() + 1);
        return answer.subSequence(from, answer.length()).toString().contains(marker);
    }
}
