package io.rkllm.server.models;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What a model file's header says of the model (a GGUF file's), read once at discovery without loading the model.
 *
 * @param architecture    the architecture ({@code qwen3}, {@code llama}, {@code bert}...)
 * @param name            the model's own name, when the file says
 * @param parameterCount  the weights' elements, all tensors together
 * @param quantisation    the file type's name ({@code Q4_K_M}), else the type of most of the weights
 * @param trainingContext the context it was trained with, 0 when the file does not say
 * @param pooling         how an embedding model or a reranker pools its rows, as a word ({@code mean}, {@code cls},
 *                        {@code last}, {@code rank})
 * @param chatTemplate    the model's own chat template (Jinja)
 * @param embeddingLength the width of its embeddings, 0 when the file does not say
 */
public record ModelHeader(String architecture, Optional<String> name, long parameterCount, String quantisation,
                          int trainingContext, Optional<String> pooling, Optional<String> chatTemplate,
                          int embeddingLength) {

    public ModelHeader {
        Objects.requireNonNull(architecture, "architecture");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(quantisation, "quantisation");
        Objects.requireNonNull(pooling, "pooling");
        Objects.requireNonNull(chatTemplate, "chatTemplate");
    }

    /** Ollama's way of writing a parameter count: {@code 596.05M}, {@code 4.02B}. */
    public String parameterSize() {
        if (parameterCount >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.2fB", parameterCount / 1e9);
        }
        if (parameterCount >= 1_000_000L) {
            return String.format(Locale.ROOT, "%.2fM", parameterCount / 1e6);
        }
        return String.format(Locale.ROOT, "%.2fK", parameterCount / 1e3);
    }

    /** A reranker: one relevance score per (query, document) pair instead of a vector. */
    public boolean ranks() {
        return pooling.filter("rank"::equals).isPresent();
    }
}
