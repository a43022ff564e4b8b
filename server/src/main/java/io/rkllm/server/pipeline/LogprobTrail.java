package io.rkllm.server.pipeline;

import io.rkllm.server.engine.contract.TokenLogprob;
import io.rkllm.server.pipeline.output.TokenProbability;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The log probabilities of a run's tokens whose text has not been sent yet: a token's comes before its text, which
 * the output scanner may hold back (a marker, a stop string begun), so each goes out with the next output step. Those
 * of text that is never sent (a stop string's) are dropped with it, as llama-server drops them.
 */
final class LogprobTrail {
    private List<TokenProbability> unsent = new ArrayList<>();

    void add(TokenLogprob token) {
        List<TokenProbability> top = new ArrayList<>(token.top().size());
        for (TokenLogprob.Choice c : token.top()) {
            top.add(new TokenProbability(c.token(), c.bytes(), c.logprob(), List.of()));
        }
        unsent.add(new TokenProbability(token.token(), token.bytes(), token.logprob(), top));
    }

    /**
     * Leaves out the last tokens, those whose bytes make up {@code stop}: the stop string that ended the answer, whose
     * text is not sent (as llama-server leaves out the tokens of its stop word).
     */
    void dropStop(String stop) {
        int left = stop.getBytes(StandardCharsets.UTF_8).length;
        while (left > 0 && !unsent.isEmpty()) {
            left -= unsent.removeLast().bytes().length;
        }
    }

    /** What the next step carries; empty from then on. */
    List<TokenProbability> take() {
        if (unsent.isEmpty()) {
            return List.of();
        }
        List<TokenProbability> taken = unsent;
        unsent = new ArrayList<>();
        return taken;
    }
}
