package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class Utf8AccumulatorTest {

    @Test
    void charactersSplitAtEveryByteArriveWhole() {
        String text = "añ日本語😀é!";
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Utf8Accumulator utf8 = new Utf8Accumulator();
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            String piece = utf8.feed(new byte[] {b});
            assertThat(piece.chars().noneMatch(c -> c == 0xFFFD)).isTrue();
            out.append(piece);
        }
        out.append(utf8.finish());
        assertThat(out.toString()).isEqualTo(text);
    }

    @Test
    void nothingIsReturnedUntilTheCharacterIsComplete() {
        byte[] emoji = "😀".getBytes(StandardCharsets.UTF_8);
        Utf8Accumulator utf8 = new Utf8Accumulator();
        assertThat(utf8.feed(Arrays.copyOfRange(emoji, 0, 3))).isEmpty();
        assertThat(utf8.feed(Arrays.copyOfRange(emoji, 3, 4))).isEqualTo("😀");
    }

    @Test
    void aCharacterTheRunEndedInsideIsDroppedAndBadBytesAreReplaced() {
        byte[] cjk = "日".getBytes(StandardCharsets.UTF_8);
        Utf8Accumulator utf8 = new Utf8Accumulator();
        assertThat(utf8.feed(new byte[] {'a', cjk[0], cjk[1]})).isEqualTo("a");
        assertThat(utf8.finish()).isEmpty();
        // a byte that can start no character is no unfinished one: it comes out as U+FFFD at once
        assertThat(utf8.feed(new byte[] {'b', (byte) 0xFF, 'c'})).isEqualTo("b\uFFFDc");
        assertThat(utf8.finish()).isEmpty();
    }
}
