package io.rkllm.llama;

import java.util.Map;
import java.util.Optional;

/**
 * What libllama says about a loaded model.
 *
 * @param description  {@code llama_model_desc} ("llama ?B F16"...)
 * @param shape        its architecture's sizes
 * @param chatTemplate the GGUF's default template ({@code llama_model_chat_template})
 * @param metadata     every GGUF metadata value as a string ({@code llama_model_meta_*}; long arrays abbreviated)
 */
public record ModelInfo(String description, long sizeBytes, long parameterCount, Shape shape,
                        Optional<String> chatTemplate, Map<String, String> metadata) {

    /** The architecture's sizes: trained context, embedding width, layers, heads, vocabulary, encoder and decoder. */
    public record Shape(int contextLengthTrained, int embeddingLength, int layers, int heads, int vocabularySize,
                        boolean hasEncoder, boolean hasDecoder) {
    }

    public int contextLengthTrained() {
        return shape.contextLengthTrained();
    }

    public int embeddingLength() {
        return shape.embeddingLength();
    }

    public int layers() {
        return shape.layers();
    }

    public int heads() {
        return shape.heads();
    }

    public int vocabularySize() {
        return shape.vocabularySize();
    }

    public boolean hasEncoder() {
        return shape.hasEncoder();
    }

    public boolean hasDecoder() {
        return shape.hasDecoder();
    }
}
