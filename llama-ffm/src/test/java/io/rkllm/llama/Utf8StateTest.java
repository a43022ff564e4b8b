package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The UTF-8 state machine agrees with the JDK's strict decoder on every byte string tried. */
class Utf8StateTest {
    @Test
    void wellFormedTextEndsBetweenCharacters() {
        String text = "a é € 中 😀 \u0000 \uFFFD \uD7FF \uE000 \uDBFF\uDFFF";
        assertThat(Utf8State.after(Utf8State.COMPLETE, text.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(Utf8State.COMPLETE);
    }

    @Test
    void brokenBytesAreInvalid() {
        int[][] broken = {
                {0x80}, {0xBF}, {0xC0, 0x80}, {0xC1, 0xBF}, {0xF5, 0x80, 0x80, 0x80}, {0xFF},
                {0xE0, 0x80, 0x80}, // overlong
                {0xED, 0xA0, 0x80}, // a surrogate
                {0xF4, 0x90, 0x80, 0x80}, // above U+10FFFF
                {0xE4, 0x22}, // a quote where a continuation byte belongs
                {0xC3, 0xC3}};
        for (int[] bytes : broken) {
            assertThat(after(bytes)).as("%s", java.util.Arrays.toString(bytes)).isEqualTo(Utf8State.INVALID);
        }
    }

    @Test
    void aCharacterCutBetweenTokensIsNeitherCompleteNorInvalid() {
        int state = Utf8State.after(Utf8State.COMPLETE, new byte[] {(byte) 0xF0, (byte) 0x9F});
        assertThat(state).isNotIn(Utf8State.COMPLETE, Utf8State.INVALID);
        assertThat(Utf8State.after(state, new byte[] {(byte) 0x98, (byte) 0x80})).isEqualTo(Utf8State.COMPLETE);
        assertThat(Utf8State.after(state, new byte[] {'a'})).isEqualTo(Utf8State.INVALID);
    }

    @Test
    void agreesWithTheJdkDecoderOnRandomBytes() {
        Random random = new Random(7);
        for (int i = 0; i < 50_000; i++) {
            byte[] bytes = new byte[1 + random.nextInt(6)];
            for (int j = 0; j < bytes.length; j++) {
                bytes[j] = (byte) (random.nextBoolean() ? 0x80 + random.nextInt(0x80) : random.nextInt(0x100));
            }
            int state = Utf8State.after(Utf8State.COMPLETE, bytes);
            if (state != Utf8State.INVALID && state != Utf8State.COMPLETE) {
                continue; // a character cut at the end: the JDK has no word for it
            }
            assertThat(state == Utf8State.COMPLETE).as("%s", java.util.Arrays.toString(bytes))
                    .isEqualTo(decodes(bytes));
        }
    }

    private static int after(int[] bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return Utf8State.after(Utf8State.COMPLETE, b);
    }

    private static boolean decodes(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
