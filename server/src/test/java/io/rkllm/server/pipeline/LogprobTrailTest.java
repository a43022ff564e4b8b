package io.rkllm.server.pipeline;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.TokenLogprob;
import io.rkllm.server.pipeline.output.TokenProbability;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tokens' log probabilities wait for the step that sends their text; a stop string's go with it. */
class LogprobTrailTest {
    private static TokenLogprob token(String text) {
        return new TokenLogprob(text, text.getBytes(UTF_8), -1.0,
                List.of(new TokenLogprob.Choice(text, text.getBytes(UTF_8), -1.0)));
    }

    @Test
    void eachStepTakesWhatCameBeforeIt() {
        LogprobTrail trail = new LogprobTrail();
        trail.add(token("He"));
        trail.add(token("llo"));
        List<TokenProbability> first = trail.take();
        assertThat(first).extracting(TokenProbability::token).containsExactly("He", "llo");
        assertThat(first.get(0).top()).extracting(TokenProbability::token).containsExactly("He");
        assertThat(trail.take()).isEmpty();
    }

    @Test
    void theTokensThatWroteTheStopStringAreLeftOut() {
        LogprobTrail trail = new LogprobTrail();
        trail.add(token("x"));
        trail.add(token("ab"));
        trail.add(token("cd"));
        trail.dropStop("bcd"); // "cd" and the "ab" it began in
        assertThat(trail.take()).extracting(TokenProbability::token).containsExactly("x");
        trail.add(token("é"));
        trail.dropStop("é"); // counted in bytes, as the tokens are
        assertThat(trail.take()).isEmpty();
    }
}
