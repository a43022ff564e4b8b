package io.rkllm.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.pipeline.request.RawPrompt;
import java.util.Optional;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/** An editor's prefix and suffix cut to the room by an estimate: the text nearest the gap kept, whole characters. */
class InfillFitTest {
    /** One token a character (a surrogate pair two), to see the cut plainly. */
    private static final ToIntFunction<String> CHARS = String::length;

    @Test
    void whatFitsIsLeftAsItIsAndWhatDoesNotKeepsTheTextNearestTheGap() {
        RawPrompt small = new RawPrompt("abc", Optional.of("xyz"), true);
        assertThat(InfillFit.cut(small, 6, CHARS)).isEmpty();
        RawPrompt big = new RawPrompt("0123456789", Optional.of("abcdefghij"), true);
        RawPrompt cut = InfillFit.cut(big, 8, CHARS).orElseThrow();
        assertThat(cut.suffix()).contains("ab");
        assertThat(cut.prefix()).isEqualTo("456789");
        // a prompt that is not to be cut is left to the context's check
        assertThat(InfillFit.cut(new RawPrompt("0123456789", Optional.of("abcdefghij")), 8, CHARS)).isEmpty();
    }

    @Test
    void noCharacterIsCutInTwo() {
        String emoji = "\uD83D\uDE00";
        RawPrompt prompt = new RawPrompt("a" + emoji + "bcd", Optional.of("x" + emoji + "yz"), true);
        for (int room = 2; room <= 9; room++) {
            RawPrompt cut = InfillFit.cut(prompt, room, CHARS).orElseThrow();
            assertThat(wellFormed(cut.prefix())).as(room + ": " + cut.prefix()).isTrue();
            assertThat(wellFormed(cut.suffix().orElseThrow())).as(room + ": " + cut.suffix()).isTrue();
        }
    }

    /** No half of a surrogate pair alone. */
    private static boolean wellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1)))
                    || Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)))) {
                return false;
            }
        }
        return true;
    }
}
