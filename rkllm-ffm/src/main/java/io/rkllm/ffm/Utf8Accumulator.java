package io.rkllm.ffm;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * One stateful UTF-8 decoder per run: bytes of a character split across callbacks are held until
 * the character is complete, so every returned string holds whole characters only.
 */
final class Utf8Accumulator {
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    private ByteBuffer pending = ByteBuffer.allocate(0);

    /** Adds bytes and returns the text of every character now complete (possibly empty). */
    String feed(byte[] bytes) {
        ByteBuffer input = ByteBuffer.allocate(pending.remaining() + bytes.length);
        input.put(pending).put(bytes).flip();
        CharBuffer out = CharBuffer.allocate(input.remaining() + 1);
        decoder.decode(input, out, false);
        pending = input.slice();
        return out.flip().toString();
    }

    /**
     * Ends the run: what is left is the start of a character the run ended inside (its token limit reached between
     * the character's bytes; bytes that could never be valid came out as U+FFFD already), which is dropped, as Ollama
     * drops it, rather than given as a U+FFFD no model wrote.
     */
    String finish() {
        pending = ByteBuffer.allocate(0);
        decoder.reset();
        return "";
    }
}
