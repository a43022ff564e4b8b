package io.rkllm.server.text;

/**
 * Where the whole characters of a stream of UTF-8 bytes end: a token of a byte-level vocabulary may hold part of a
 * character, which the next token finishes. Bytes that can never be finished count as whole (they decode as U+FFFD).
 */
public final class Utf8Prefix {
    private Utf8Prefix() {
    }

    /** The length of the longest prefix of {@code bytes} that does not end inside a character still to be finished. */
    public static int complete(byte[] bytes) {
        int n = bytes.length;
        // look back at most 3 bytes for the lead byte of the last character
        for (int back = 1; back <= Math.min(3, n); back++) {
            int b = bytes[n - back] & 0xFF;
            if ((b & 0xC0) == 0x80) {
                continue; // a continuation byte: its lead byte is further back
            }
            int length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
            return length > back ? n - back : n;
        }
        return n;
    }

    /** Whether {@code b} continues a character (10xxxxxx). */
    public static boolean continues(byte b) {
        return (b & 0xC0) == 0x80;
    }
}
