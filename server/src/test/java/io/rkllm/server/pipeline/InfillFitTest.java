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
        assertThat(InfillFit.cut(small, 12, CHARS)).isEmpty();
        RawPrompt big = new RawPrompt("0123456789", Optional.of("abcdefghij"), true);
        RawPrompt cut = InfillFit.cut(big, 16, CHARS).orElseThrow(); // the file keeps half: 8
        assertThat(cut.suffix()).contains("ab");
        assertThat(cut.prefix()).isEqualTo("456789");
        // a prompt that is not to be cut is left to the context's check
        assertThat(InfillFit.cut(new RawPrompt("0123456789", Optional.of("abcdefghij")), 8, CHARS)).isEmpty();
    }

    @Test
    void theFileKeepsHalfTheRoomAndOtherFilesTheRestTheFirstLeftOutFirst() {
        List<FileChunk> files = List.of(new FileChunk("a", "1111"), new FileChunk("b", "2222"),
                new FileChunk("c", "3333"));
        // each chunk is 6 "tokens" (name, new line, text); the file 8
        RawPrompt prompt = new RawPrompt("0123", Optional.of("abcd"), true, files);
        assertThat(InfillFit.cut(prompt, 40, CHARS)).isEmpty();
        RawPrompt cut = InfillFit.cut(prompt, 30, CHARS).orElseThrow(); // 15 each: two chunks
        assertThat(cut.extra()).extracting(FileChunk::filename).containsExactly("b", "c");
        assertThat(cut.prefix()).isEqualTo("0123");
        assertThat(cut.suffix()).contains("abcd");
        RawPrompt tight = InfillFit.cut(prompt, 10, CHARS).orElseThrow(); // 5 each: the file cut, no chunk
        assertThat(tight.extra()).isEmpty();
        assertThat(tight.prefix().length() + tight.suffix().orElseThrow().length()).isLessThanOrEqualTo(5);
        // the chunks kept depend on the room alone, not on the file: an editor's warm-up (no file) and its
        // completions keep the same ones
        RawPrompt warmUp = InfillFit.cut(new RawPrompt("", Optional.of(""), true, files), 30, CHARS).orElseThrow();
        assertThat(warmUp.extra()).isEqualTo(cut.extra());
        // a large room: the file at most FILE_ROOM, with chunks or without
        String file = "x".repeat(3000);
        for (List<FileChunk> with : List.of(files, List.<FileChunk>of())) {
            RawPrompt big = InfillFit.cut(new RawPrompt(file, Optional.of(file), true, with), 5000, CHARS)
                    .orElseThrow();
            assertThat(big.prefix().length() + big.suffix().orElseThrow().length())
                    .isEqualTo(ChatPrompt.Raw.FILE_ROOM);
            assertThat(big.extra()).hasSize(with.size());
        }
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
