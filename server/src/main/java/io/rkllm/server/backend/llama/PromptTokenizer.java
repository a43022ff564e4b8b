package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaModel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * A model's tokenizer as the decode loop uses it for prompts: a whole prompt (with the tokenizer's BOS, special
 * tokens' text read as the special tokens), the text that continues what a sequence holds, and each token's piece
 * with special tokens written out as the chat template writes them. Pieces are kept once asked for: a prompt's new
 * part is spelt on every admission, and a sampled token's piece at every step. Used on the decode loop's thread
 * only; the pieces it gives are shared and must not be changed.
 */
final class PromptTokenizer implements PrefixCachePolicy.Tokenizer {
    private final LlamaModel model;
    private final byte[][] pieces;
    /** Pieces as an answer writes them: a special token's text left out (llama.cpp's {@code special} false). */
    private final byte[][] plainPieces;

    PromptTokenizer(LlamaModel model) {
        this.model = model;
        this.pieces = new byte[model.vocabularySize()][];
        this.plainPieces = new byte[model.vocabularySize()][];
    }

    int[] whole(String text) {
        return model.tokenize(text, true, true);
    }

    /**
     * The tokens of {@code text} after a held beginning: no BOS, and only when their pieces are exactly its bytes (a
     * SentencePiece tokenizer puts a space before a text it starts; such tokens would not be the text's).
     */
    @Override
    public Optional<int[]> continuation(String text) {
        if (text.isEmpty()) {
            return Optional.of(new int[0]);
        }
        int[] tokens = model.tokenize(text, false, true);
        ByteArrayOutputStream spelt = new ByteArrayOutputStream(text.length() + 16);
        for (int token : tokens) {
            spelt.writeBytes(piece(token));
        }
        return Arrays.equals(spelt.toByteArray(), text.getBytes(StandardCharsets.UTF_8)) ? Optional.of(tokens)
                : Optional.empty();
    }

    /** The token's bytes, a special token's as its text. */
    byte[] piece(int token) {
        byte[] piece = pieces[token];
        if (piece == null) {
            piece = model.tokenToPiece(token, true);
            pieces[token] = piece;
        }
        return piece;
    }

    /** A sampled token's bytes: a special token's text only when {@code special} (the request keeps it). */
    byte[] piece(int token, boolean special) {
        if (special) {
            return piece(token);
        }
        byte[] piece = plainPieces[token];
        if (piece == null) {
            piece = model.tokenToPiece(token, false);
            plainPieces[token] = piece;
        }
        return piece;
    }

    /** A token's piece as text (an end-of-generation token's, which ends an answer in the chat template's words). */
    String text(int token) {
        return new String(piece(token), StandardCharsets.UTF_8);
    }
}
