package io.rkllm.server.backend.llama;

import io.rkllm.server.text.Utf8Prefix;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Joins the bytes of consecutive token pieces into whole characters: a byte-level token may be a part of a UTF-8
 * character, which must not reach the client split (nor as two replacement characters). Bytes that can never be
 * valid come out as U+FFFD.
 */
final class Utf8Pieces {
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

    /** The whole characters the pending bytes and {@code piece} make; an unfinished character waits. */
    String add(byte[] piece) {
        if (pending.size() == 0 && ascii(piece)) {
            return new String(piece, StandardCharsets.US_ASCII); // most pieces: nothing waits, nothing to decode
        }
        pending.writeBytes(piece);
        byte[] bytes = pending.toByteArray();
        int complete = Utf8Prefix.complete(bytes);
        pending.reset();
        pending.write(bytes, complete, bytes.length - complete);
        return decode(bytes, complete);
    }

    private static boolean ascii(byte[] piece) {
        for (byte b : piece) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether no character waits for more bytes: the text so far is all the pieces so far spell. */
    boolean whole() {
        return pending.size() == 0;
    }

    /** What is left at the end of a run, malformed or not. */
    String flush() {
        byte[] bytes = pending.toByteArray();
        pending.reset();
        return decode(bytes, bytes.length);
    }

    private static String decode(byte[] bytes, int length) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        try {
            CharBuffer chars = decoder.decode(ByteBuffer.wrap(bytes, 0, length));
            return chars.toString();
        } catch (CharacterCodingException e) {
            return new String(bytes, 0, length, StandardCharsets.UTF_8);
        }
    }
}
