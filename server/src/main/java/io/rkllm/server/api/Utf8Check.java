package io.rkllm.server.api;

/** Where a byte array stops being UTF-8, without decoding it into another array. */
final class Utf8Check {
    private Utf8Check() {
    }

    /** The index of the first byte that starts no well-formed UTF-8 sequence, or -1 when all of it is UTF-8. */
    static int firstMalformed(byte[] bytes) {
        int i = 0;
        while (i < bytes.length) {
            int b = bytes[i] & 0xff;
            if (b < 0x80) {
                i++;
                continue;
            }
            int length;
            int min;
            if (b >= 0xc2 && b <= 0xdf) {
                length = 2;
                min = 0x80;
            } else if (b >= 0xe0 && b <= 0xef) {
                length = 3;
                min = 0x800;
            } else if (b >= 0xf0 && b <= 0xf4) {
                length = 4;
                min = 0x10000;
            } else {
                return i;
            }
            if (i + length > bytes.length) {
                return i;
            }
            int code = b & (0xff >> (length + 1));
            for (int k = 1; k < length; k++) {
                int c = bytes[i + k] & 0xff;
                if ((c & 0xc0) != 0x80) {
                    return i;
                }
                code = code << 6 | c & 0x3f;
            }
            // overlong forms, surrogates and code points beyond Unicode are not UTF-8
            if (code < min || code >= 0xd800 && code <= 0xdfff || code > 0x10ffff) {
                return i;
            }
            i += length;
        }
        return -1;
    }
}
