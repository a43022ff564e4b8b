package io.rkllm.llama;

import java.util.Map;
import java.util.Optional;

/**
 * What libllama says about a loaded model.
 *
 * @param description  {@code llama_model_desc} ("llama ?B F16"...)
 * @param metadata     every GGUF metadata value as a string ({@code llama_model_meta_*}; long arrays abbreviated)
 * @param chatTemplate the GGUF's default template ({@code llama_model_chat_template})
 */
public record ModelInfo(String description, long sizeBytes, long parameterCount, int contextLengthTrained,
                        int embeddingLength, int layers, int heads, int vocabularySize, boolean hasEncoder,
                        boolean hasDecoder, Optional<String> chatTemplate, Map<String, String> metadata) {
}
