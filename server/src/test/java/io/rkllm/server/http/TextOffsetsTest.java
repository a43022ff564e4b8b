package io.rkllm.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where a token's text starts in the answer, counted in the characters the answer's decoding makes of its bytes. */
class TextOffsetsTest {
    private static byte[] b(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    /** The offset of {@code piece} after {@code before}, counted on as an answer's tokens are. */
    private static int offset(byte[] before, byte[] piece) {
        TextOffsets offsets = new TextOffsets();
        offsets.next(before);
        return offsets.next(piece);
    }

    @Test
    void aTokenThatContinuesACharacterStartsWhereTheCharacterDoes() {
        assertThat(offset(b('a', 0xE2), b(0x82, 0xAC))).isEqualTo(1);
        assertThat(offset(b('a', 0xE2, 0x82), b(0xAC))).isEqualTo(1);
        // a 4-byte character is two UTF-16 units of the text
        assertThat(offset(b(0xF0, 0x9F, 0x98, 0x80), b('c'))).isEqualTo(2);
    }

    @Test
    void bytesThatMakeNoCharacterAreOneReplacementEachAsTheAnswerSpellsThem() {
        // 0xC3 then 'e': the answer reads U+FFFD then e
        assertThat(offset(b(0xC3), b('e', 'n'))).isEqualTo(1);
        assertThat(offset(b(), b('x'))).isZero();
    }

    @Test
    void countedTokenByTokenTheOffsetsAreThoseOfTheWholeText() {
        // "a€b😀" in pieces that split both characters
        TextOffsets offsets = new TextOffsets();
        int[] starts = {offsets.next(b('a')), offsets.next(b(0xE2)), offsets.next(b(0x82)), offsets.next(b(0xAC, 'b')),
            offsets.next(b(0xF0, 0x9F)), offsets.next(b(0x98, 0x80)), offsets.next(b('!'))};
        assertThat(starts).containsExactly(0, 1, 1, 1, 3, 3, 5);
    }
}
