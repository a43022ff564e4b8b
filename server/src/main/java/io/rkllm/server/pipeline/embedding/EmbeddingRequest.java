package io.rkllm.server.pipeline.embedding;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One request for vectors, whichever API it came by.
 *
 * @param model      the model's id, alias or prefix ("" = the only embedding model)
 * @param inputs     the texts, in the order their vectors are returned
 * @param inputType  whether the texts are search queries or documents, when the client says so: the model's
 *                   query or document prefix goes before each
 * @param dimensions fewer dimensions than the model's, for a model trained for shortened vectors
 * @param truncate   a text longer than the model takes is cut to fit (true), or refused (false)
 * @param rankQuery  a rerank request: the query each input (a document) is scored against by a reranker, one
 *                   relevance score per input instead of a vector
 */
public record EmbeddingRequest(String model, List<String> inputs, InputType inputType, OptionalInt dimensions,
                               boolean truncate, Optional<String> rankQuery) {

    /** A request for vectors. */
    public EmbeddingRequest(String model, List<String> inputs, InputType inputType, OptionalInt dimensions,
                            boolean truncate) {
        this(model, inputs, inputType, dimensions, truncate, Optional.empty());
    }

    /** A rerank request: {@code documents} scored against {@code query}. */
    public static EmbeddingRequest rerank(String model, String query, List<String> documents) {
        return new EmbeddingRequest(model, documents, InputType.UNMARKED, OptionalInt.empty(), true,
                Optional.of(query));
    }

    /** What the texts are, as far as the client said. */
    public enum InputType {
        UNMARKED, QUERY, DOCUMENT
    }

    public EmbeddingRequest {
        Objects.requireNonNull(model, "model");
        inputs = List.copyOf(inputs);
        Objects.requireNonNull(inputType, "inputType");
        Objects.requireNonNull(dimensions, "dimensions");
        Objects.requireNonNull(rankQuery, "rankQuery");
    }
}
