package io.rkllm.server.engine.contract;

import java.util.List;

/**
 * A loaded model's own tokenizer, asked from any thread while the model runs (llama-server's {@code /tokenize} and
 * {@code /detokenize}): nothing is queued, nothing is decoded.
 */
public interface ModelTokenizer {

    /**
     * The text's tokens.
     *
     * @param addSpecial   with the tokens the model's tokenizer puts around a text (its BOS)
     * @param parseSpecial special tokens' texts read as those tokens, not as text
     * @throws Unloaded when the model was unloaded meanwhile
     */
    int[] tokenize(String text, boolean addSpecial, boolean parseSpecial);

    /**
     * Each token's bytes as the model writes it, special tokens' texts included (a piece may be part of a character).
     *
     * @throws IllegalArgumentException for a token the vocabulary does not have
     * @throws Unloaded when the model was unloaded meanwhile
     */
    List<byte[]> pieces(int[] tokens);

    /**
     * How many tokens the vocabulary has: the ids run from 0 to one less.
     *
     * @throws Unloaded when the model was unloaded meanwhile
     */
    int vocabularySize();

    /** The model was unloaded between being found and being asked: find it again. */
    final class Unloaded extends RuntimeException {
        public Unloaded(String model) {
            super("model " + model + " was unloaded");
        }
    }
}
