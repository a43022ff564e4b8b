package io.rkllm.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where a token's text starts in the answer, counted in the characters the answer's decoding makes of its bytes. */
class LogprobsJsonTest {
    private static byte[] b(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    @Test
    void aTokenThatContinuesACharacterStartsWhereTheCharacterDoes() {
        assertThat(LogprobsJson.offset(b('a', 0xE2), b(0x82, 0xAC))).isEqualTo(1);
        assertThat(LogprobsJson.offset(b('a', 0xE2, 0x82), b(0xAC))).isEqualTo(1);
        // a 4-byte character is two UTF-16 units of the text
        assertThat(LogprobsJson.offset(b(0xF0, 0x9F, 0x98, 0x80), b('c'))).isEqualTo(2);
    }

    @Test
    void bytesThatMakeNoCharacterAreOneReplacementEachAsTheAnswerSpellsThem() {
        // 0xC3 then 'e': the answer reads U+FFFD then e
        assertThat(LogprobsJson.offset(b(0xC3), b('e', 'n'))).isEqualTo(1);
        assertThat(LogprobsJson.offset(b(), b('x'))).isZero();
    }
}
