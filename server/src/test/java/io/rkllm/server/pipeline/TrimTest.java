package io.rkllm.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.cache.Trim;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.Role;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** Which messages a trim leaves out, and which trims a conversation may get. */
class TrimTest {
    private static final List<String> HISTORY = List.of("u0", "a0", "u1", "a1", "u2", "a2");

    @Test
    void aTrimOfOldestMessagesKeepsTheRest() {
        Trim trim = Trim.oldest(2);
        assertThat(trim.count()).isEqualTo(2);
        assertThat(trim.kept(HISTORY)).containsExactly("u1", "a1", "u2", "a2");
        assertThat(trim.leftOut(HISTORY)).containsExactly("u0", "a0");
        assertThat(trim.note()).isEqualTo("2 earliest messages left out");
    }

    @Test
    void aPinnedTrimKeepsItsQuestion() {
        Trim trim = new Trim(2, 3, 5);
        assertThat(trim.count()).isEqualTo(4);
        assertThat(trim.kept(HISTORY)).containsExactly("u1", "a2");
        assertThat(trim.leftOut(HISTORY)).containsExactly("u0", "a0", "a1", "u2");
        assertThat(trim.note()).isEqualTo("4 earlier messages left out (the newest question kept)");
    }

    @Test
    void aTrimCoversTheTrimsThatLeaveOutLess() {
        assertThat(Trim.oldest(4).covers(Trim.oldest(2))).isTrue();
        assertThat(Trim.oldest(2).covers(Trim.oldest(4))).isFalse();
        assertThat(new Trim(2, 3, 5).covers(Trim.oldest(2))).isTrue();
        assertThat(new Trim(2, 3, 5).covers(Trim.oldest(4))).as("the pinned question is kept").isFalse();
        assertThat(Trim.oldest(6).covers(new Trim(2, 3, 5))).isTrue();
        assertThat(Trim.NONE.covers(Trim.NONE)).isTrue();
    }

    @Test
    void aChatMayLoseWholeExchangesUpToAllItsHistory() {
        List<ChatMessage> history = messages("user", "assistant", "user", "assistant");
        assertThat(ContextFit.candidates(history, messages("user")))
                .containsExactly(Trim.NONE, Trim.oldest(2), Trim.oldest(4));
    }

    @Test
    void anAgentLoopLosesWholeToolRoundsButNeverItsQuestionNorItsNewestCall() {
        // an earlier exchange, then a question and three tool rounds; the new messages answer the third call
        List<ChatMessage> history = messages("user", "assistant", "user", "assistant", "tool", "assistant",
                "tool", "assistant");
        assertThat(ContextFit.candidates(history, messages("tool"))).containsExactly(Trim.NONE, Trim.oldest(2),
                new Trim(2, 3, 5), new Trim(2, 3, 7));
    }

    private static List<ChatMessage> messages(String... roles) {
        return Arrays.stream(roles).map(r -> ChatMessage.of(Role.valueOf(r.toUpperCase(Locale.ROOT)),
                r)).toList();
    }
}
