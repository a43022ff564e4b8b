package io.rkllm.server.models;

import java.util.Objects;
import java.util.Optional;

/**
 * What the catalogue knows of a GGUF model from its file's header (llama.cpp's models): read once at discovery by
 * the pure-Java reader, never by loading the model.
 *
 * @param architecture     {@code general.architecture} ({@code qwen3}, {@code llama}, {@code bert}...)
 * @param name             {@code general.name}, when the file says
 * @param parameterCount   the weights' elements, all tensors together
 * @param quantisation     {@code general.file_type}'s name ({@code Q4_K_M}), else the type of most of the weights
 * @param trainingContext  {@code <arch>.context_length}, 0 when the file does not say
 * @param kvBytesPerToken  what one token takes in the KV cache at F16 (keys and values of every layer); 0 unknown
 * @param pooling          {@code <arch>.pooling_type} as a word ({@code mean}, {@code cls}, {@code last},
 *                         {@code rank}), for embedding models and rerankers
 * @param chatTemplate     {@code tokenizer.chat_template}, the model's own Jinja template
 * @param embeddingLength  {@code <arch>.embedding_length}, 0 when the file does not say
 * @param sequences        conversations one loaded copy runs at once ({@code engines.llama.parallel}); they share
 *                         its one KV cache
 */
public record GgufFacts(String architecture, Optional<String> name, long parameterCount, String quantisation,
                        int trainingContext, long kvBytesPerToken, Optional<String> pooling,
                        Optional<String> chatTemplate, int embeddingLength, int sequences) {

    public GgufFacts {
        Objects.requireNonNull(architecture, "architecture");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(quantisation, "quantisation");
        Objects.requireNonNull(pooling, "pooling");
        Objects.requireNonNull(chatTemplate, "chatTemplate");
    }

    /** Ollama's way of writing a parameter count: {@code 596.05M}, {@code 4.02B}. */
    public String parameterSize() {
        if (parameterCount >= 1_000_000_000L) {
            return String.format(java.util.Locale.ROOT, "%.2fB", parameterCount / 1e9);
        }
        if (parameterCount >= 1_000_000L) {
            return String.format(java.util.Locale.ROOT, "%.2fM", parameterCount / 1e6);
        }
        return String.format(java.util.Locale.ROOT, "%.2fK", parameterCount / 1e3);
    }

    /** A reranker: one relevance score per (query, document) pair instead of a vector. */
    public boolean ranks() {
        return pooling.filter("rank"::equals).isPresent();
    }
}
