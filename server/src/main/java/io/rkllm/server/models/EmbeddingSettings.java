package io.rkllm.server.models;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * How an embedding model turns a text into one vector (docs/embeddings.md). The runtime returns one row of its
 * last hidden layer per token it processed; these settings say what text it is given and which rows count.
 *
 * @param pooling        which rows make the vector: the last token's (Qwen3-Embedding, gte-Qwen2, e5-mistral) or
 *                       the mean of all (models trained with mean pooling)
 * @param normalize      scale the vector to unit length (L2), as the model's reference code does
 * @param framing        {@link Framing#RAW}: the text alone plus {@code endOfText}, with the runtime's chat
 *                       template emptied (the reference recipe); {@link Framing#TEMPLATE}: the text as a user turn
 *                       in the model's chat template (what the peer RKLLM servers do)
 * @param endOfText      appended to the text in raw framing ({@code ""} for nothing): Qwen3-Embedding pools the
 *                       row of {@code <|endoftext|>}
 * @param queryPrefix    put before a text the request marks as a query ({@code input_type: query}), e.g.
 *                       Qwen3-Embedding's {@code Instruct: ...\nQuery: }
 * @param documentPrefix put before a text the request marks as a document; unmarked texts get no prefix
 * @param dimensions     the vector width when known (listings; the runtime's row width is what counts); 0 = unknown
 * @param matryoshka     trained for shortened vectors: a request may ask for fewer {@code dimensions}
 *                       (truncated, then normalised again)
 * @param maxInputTokens longest input, framing included, the model takes (the context length limits it too);
 *                       0 = the context length
 */
public record EmbeddingSettings(Pooling pooling, boolean normalize, Framing framing, String endOfText,
                                String queryPrefix, String documentPrefix, int dimensions, boolean matryoshka,
                                int maxInputTokens) {

    /** Which rows of the last hidden layer make the vector. */
    public enum Pooling {
        LAST, MEAN,
        /** The first token's row (BERT-like models' {@code [CLS]}). */
        CLS,
        /** Not a vector: a reranker's relevance score (GGUF rerankers). */
        RANK;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Optional<Pooling> parse(String value) {
            return switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "last", "last_token", "eos" -> Optional.of(LAST);
                case "mean", "average" -> Optional.of(MEAN);
                case "cls", "first" -> Optional.of(CLS);
                case "rank" -> Optional.of(RANK);
                default -> Optional.empty();
            };
        }
    }

    /** What text the runtime is given. */
    public enum Framing {
        RAW, TEMPLATE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Optional<Framing> parse(String value) {
            return switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "raw", "none" -> Optional.of(RAW);
                case "template", "chat_template" -> Optional.of(TEMPLATE);
                default -> Optional.empty();
            };
        }
    }

    public EmbeddingSettings {
        Objects.requireNonNull(pooling, "pooling");
        Objects.requireNonNull(framing, "framing");
        Objects.requireNonNull(endOfText, "endOfText");
        Objects.requireNonNull(queryPrefix, "queryPrefix");
        Objects.requireNonNull(documentPrefix, "documentPrefix");
        if (dimensions < 0 || maxInputTokens < 0) {
            throw new IllegalArgumentException("dimensions and maxInputTokens must not be negative");
        }
    }

    /**
     * For an embedding model of no known family: the last token of the raw text, normalised. A decoder-only
     * embedding model usually needs its end-of-text marker too: its sidecar says which.
     */
    public static EmbeddingSettings generic() {
        return new EmbeddingSettings(Pooling.LAST, true, Framing.RAW, "", "", "", 0, false, 0);
    }

    /** The longest input in tokens for a model loaded with {@code contextLength}. */
    public int inputLimit(int contextLength) {
        return maxInputTokens > 0 ? Math.min(maxInputTokens, contextLength) : contextLength;
    }
}
