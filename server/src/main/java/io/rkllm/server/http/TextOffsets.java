package io.rkllm.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.rkllm.server.text.Utf8Prefix;
import java.util.Arrays;

/**
 * Where each token's text starts in an answer, in the characters of the answer's text (the legacy completions'
 * {@code text_offset}), counted on token by token: the text is decoded as the answer's was, a character whole once
 * its bytes are and bytes that cannot make one U+FFFD each. A token that continues a character starts where that
 * character does. One instance an answer.
 */
public final class TextOffsets {
    /** The length of the text the bytes so far have decided. */
    private int chars;
    /** The last bytes, of a character still to be finished. */
    private byte[] unfinished = new byte[0];

    /** Where the text of the token with bytes {@code piece} starts; the token is counted in. */
    public int next(byte[] piece) {
        boolean continuesOne = unfinished.length > 0 && piece.length > 0 && Utf8Prefix.continues(piece[0]);
        int offset = continuesOne ? chars : chars + new String(unfinished, UTF_8).length();
        byte[] bytes = Arrays.copyOf(unfinished, unfinished.length + piece.length);
        System.arraycopy(piece, 0, bytes, unfinished.length, piece.length);
        int complete = Utf8Prefix.complete(bytes);
        chars += new String(bytes, 0, complete, UTF_8).length();
        unfinished = Arrays.copyOfRange(bytes, complete, bytes.length);
        return offset;
    }
}
