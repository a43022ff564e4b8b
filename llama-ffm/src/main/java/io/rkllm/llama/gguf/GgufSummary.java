package io.rkllm.llama.gguf;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a model list shows of a GGUF file, read from its header alone.
 *
 * @param quantisation {@code general.file_type}'s name (Q4_K_M...), else the type holding most of the weights
 * @param poolingType  {@code <arch>.pooling_type} of an embedding model (0 none, 1 mean, 2 cls, 3 last, 4 rank)
 */
public record GgufSummary(String architecture, Optional<String> name, Optional<Long> contextLength,
                          Optional<Long> embeddingLength, Optional<Long> blockCount, long parameterCount,
                          String quantisation, Optional<String> chatTemplate, Optional<Long> poolingType,
                          long fileSize) {

    /** A summary of {@code file} for listing the model without loading it. */
    public static GgufSummary of(GgufFile file) {
        String architecture = file.architecture().orElseThrow(() -> new GgufFormatException(
                file.path() + " has no general.architecture: not a model file"));
        return new GgufSummary(architecture, file.string("general.name"), file.archInteger("context_length"),
                file.archInteger("embedding_length"), file.archInteger("block_count"), file.parameterCount(),
                quantisation(file), file.string("tokenizer.chat_template"), file.archInteger("pooling_type"),
                file.fileSize());
    }

    private static String quantisation(GgufFile file) {
        Optional<String> named = file.integer("general.file_type").flatMap(FileType::name);
        if (named.isPresent()) {
            return named.get();
        }
        Map<String, Long> bytesByType = new HashMap<>();
        for (GgufTensor tensor : file.tensors()) {
            String type = tensor.type().map(Enum::name).orElse("type " + tensor.typeId());
            bytesByType.merge(type, tensor.bytes().orElse(tensor.elements()), Long::sum);
        }
        return bytesByType.entrySet().stream().max(Comparator.comparingLong(Map.Entry::getValue))
                .map(Map.Entry::getKey).orElse("unknown");
    }
}
