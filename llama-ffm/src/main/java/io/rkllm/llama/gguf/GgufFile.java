package io.rkllm.llama.gguf;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A GGUF file's header as {@link GgufReader} read it. Metadata values are Long (every integer type), Double
 * (float32 and float64), Boolean, String or {@link GgufArray}.
 */
public record GgufFile(Path path, int version, int alignment, Map<String, Object> metadata, List<GgufTensor> tensors,
                       long dataOffset, long fileSize) {

    public Optional<String> string(String key) {
        return metadata.get(key) instanceof String s ? Optional.of(s) : Optional.empty();
    }

    public Optional<Long> integer(String key) {
        return metadata.get(key) instanceof Long n ? Optional.of(n) : Optional.empty();
    }

    public Optional<Double> number(String key) {
        return switch (metadata.get(key)) {
            case Double d -> Optional.of(d);
            case Long n -> Optional.of(n.doubleValue());
            case null, default -> Optional.empty();
        };
    }

    public Optional<GgufArray> array(String key) {
        return metadata.get(key) instanceof GgufArray a ? Optional.of(a) : Optional.empty();
    }

    /** {@code general.architecture} ("llama", "qwen3", "bert"...). */
    public Optional<String> architecture() {
        return string("general.architecture");
    }

    /** An architecture-scoped integer such as {@code <arch>.context_length}. */
    public Optional<Long> archInteger(String suffix) {
        return architecture().flatMap(arch -> integer(arch + "." + suffix));
    }

    /** The number of weights: the elements of every tensor. */
    public long parameterCount() {
        return tensors.stream().mapToLong(GgufTensor::elements).sum();
    }

}
