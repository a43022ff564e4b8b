package io.rkllm.llama;

/**
 * Where a byte stream stands in UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), as an
 * int: 0 between characters, otherwise the continuation bytes still expected and the range the next one must be
 * in. llama.cpp's grammar reads a token's bytes leniently (continuation bytes are not checked), so a model could
 * write bytes the grammar counts as one character and a UTF-8 decoder as several replacement characters, or one
 * that hides a closing quote; the grammar's sampler is given only tokens that keep the output well-formed.
 */
final class Utf8State {
    static final int COMPLETE = 0;
    static final int INVALID = -1;

    private Utf8State() {
    }

    /** The state after {@code bytes} from {@code state}; {@link #INVALID} if they break UTF-8. */
    static int after(int state, byte[] bytes) {
        for (byte b : bytes) {
            state = next(state, b & 0xFF);
            if (state == INVALID) {
                return INVALID;
            }
        }
        return state;
    }

    static int next(int state, int b) {
        if (state == COMPLETE) {
            if (b < 0x80) {
                return COMPLETE;
            }
            if (b >= 0xC2 && b <= 0xDF) {
                return expect(1, 0x80, 0xBF);
            }
            if (b >= 0xE0 && b <= 0xEF) {
                return expect(2, b == 0xE0 ? 0xA0 : 0x80, b == 0xED ? 0x9F : 0xBF);
            }
            if (b >= 0xF0 && b <= 0xF4) {
                return expect(3, b == 0xF0 ? 0x90 : 0x80, b == 0xF4 ? 0x8F : 0xBF);
            }
            return INVALID;
        }
        int remaining = state >>> 16;
        int low = (state >>> 8) & 0xFF;
        int high = state & 0xFF;
        if (b < low || b > high) {
            return INVALID;
        }
        return remaining == 1 ? COMPLETE : expect(remaining - 1, 0x80, 0xBF);
    }

    private static int expect(int remaining, int low, int high) {
        return remaining << 16 | low << 8 | high;
    }
}
