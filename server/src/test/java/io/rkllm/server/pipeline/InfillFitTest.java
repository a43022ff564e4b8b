package io.rkllm.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.pipeline.request.FileChunk;
import io.rkllm.server.pipeline.request.RawPrompt;
import java.util.List;
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
    void otherFilesTakeWhatTheFileLeavesTheFirstLeftOutFirst() {
        List<FileChunk> files = List.of(new FileChunk("a", "1111"), new FileChunk("b", "2222"),
                new FileChunk("c", "3333"));
        // each chunk is 6 "tokens" (name, new line, text): 8 of the file and two chunks fit 20
        RawPrompt prompt = new RawPrompt("0123", Optional.of("abcd"), true, files);
        assertThat(InfillFit.cut(prompt, 26, CHARS)).isEmpty();
        RawPrompt cut = InfillFit.cut(prompt, 20, CHARS).orElseThrow();
        assertThat(cut.extra()).extracting(FileChunk::filename).containsExactly("b", "c");
        assertThat(cut.prefix()).isEqualTo("0123");
        assertThat(cut.suffix()).contains("abcd");
        assertThat(InfillFit.cut(prompt, 8, CHARS).orElseThrow().extra()).isEmpty();
        // with other files, the file keeps at most FILE_ROOM, the rest going to them
        String file = "x".repeat(3000);
        RawPrompt big = InfillFit.cut(new RawPrompt(file, Optional.of(file), true, files), 4000, CHARS).orElseThrow();
        assertThat(big.prefix().length() + big.suffix().orElseThrow().length()).isEqualTo(ChatPrompt.Raw.FILE_ROOM);
        assertThat(big.extra()).hasSize(3);
        // without them, the whole room
        RawPrompt alone = InfillFit.cut(new RawPrompt(file, Optional.of(file), true), 4000, CHARS).orElseThrow();
        assertThat(alone.prefix().length() + alone.suffix().orElseThrow().length()).isEqualTo(4000);
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
