package io.rkllm.server.backend.llama;

import io.rkllm.llama.gguf.GgufArray;
import io.rkllm.llama.gguf.GgufFile;
import io.rkllm.llama.gguf.GgufFormatException;
import io.rkllm.llama.gguf.GgufReader;
import io.rkllm.llama.gguf.GgufSummary;
import io.rkllm.server.models.ModelHeader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reads what the catalogue lists of a {@code .gguf} file from its header, with the pure-Java reader of the llama
 * binding (no native code: discovery runs whether or not a llama.cpp library is installed). A damaged or truncated
 * file is refused with the reader's message.
 */
final class GgufMetadata {
    private GgufMetadata() {
    }

    /** Thrown for a file that is not a usable GGUF model, with the reason. */
    static final class Unreadable extends Exception {
        Unreadable(String message) {
            super(message);
        }
    }

    /**
     * The facts of the model in {@code file}, with {@code laterParts} its other parts when it is split (their tensor
     * tables count in its parameters, their sizes in what it takes).
     */
    static GgufFacts read(Path file, List<Path> laterParts, int sequences) throws Unreadable {
        return read(file, laterParts, sequences, KvLayout.SHARED);
    }

    /** The facts of a model whose conversations hold their KV cells as {@code layout} says. */
    static GgufFacts read(Path file, List<Path> laterParts, int sequences, KvLayout layout) throws Unreadable {
        GgufFile gguf = header(file);
        long laterParameters = 0;
        long laterBytes = 0;
        for (Path part : laterParts) {
            laterParameters += header(part).parameterCount();
            try {
                laterBytes += Files.size(part);
            } catch (IOException e) {
                throw new Unreadable(part.getFileName() + " cannot be read: " + e);
            }
        }
        GgufSummary summary;
        try {
            summary = GgufSummary.of(gguf);
        } catch (GgufFormatException e) {
            throw new Unreadable(e.getMessage());
        }
        return new GgufFacts(new ModelHeader(summary.architecture(), summary.name(),
                summary.parameterCount() + laterParameters,
                summary.quantisation(), (int) Math.min(Integer.MAX_VALUE, summary.contextLength().orElse(0L)),
                summary.poolingType().flatMap(GgufMetadata::pooling), summary.chatTemplate().filter(t -> !t.isBlank()),
                (int) (long) summary.embeddingLength().orElse(0L)), kvBytesPerToken(gguf), sequences, laterBytes, layout);
    }

    private static GgufFile header(Path file) throws Unreadable {
        try {
            return new GgufReader().read(file);
        } catch (GgufFormatException e) {
            throw new Unreadable(file.getFileName() + ": " + e.getMessage());
        } catch (IOException e) {
            throw new Unreadable(file.getFileName() + " cannot be read: " + e);
        }
    }

    /** {@code <arch>.pooling_type} as a word; none (0) is no pooling at all. */
    private static Optional<String> pooling(long type) {
        return switch ((int) type) {
            case 1 -> Optional.of("mean");
            case 2 -> Optional.of("cls");
            case 3 -> Optional.of("last");
            case 4 -> Optional.of("rank");
            default -> Optional.empty();
        };
    }

    /**
     * F16 keys and values of every layer for one token: 2 x layers x KV heads x (key length + value length) / 2.
     * The head lengths default to the embedding width over the heads, as llama.cpp's do.
     */
    static long kvBytesPerToken(GgufFile gguf) {
        long layers = gguf.archInteger("block_count").orElse(0L);
        long width = gguf.archInteger("embedding_length").orElse(0L);
        long heads = firstInteger(gguf, "attention.head_count").orElse(0L);
        long kvHeads = firstInteger(gguf, "attention.head_count_kv").orElse(heads);
        if (layers <= 0 || width <= 0 || heads <= 0) {
            return 0;
        }
        long keyLength = gguf.archInteger("attention.key_length").orElse(width / heads);
        long valueLength = gguf.archInteger("attention.value_length").orElse(width / heads);
        return 2 * layers * kvHeads * (keyLength + valueLength);
    }

    /** An integer, or the largest of a per-layer array of them (some architectures vary the heads by layer). */
    private static Optional<Long> firstInteger(GgufFile gguf, String suffix) {
        Optional<Long> single = gguf.archInteger(suffix);
        if (single.isPresent()) {
            return single;
        }
        Optional<GgufArray> array = gguf.architecture().flatMap(a -> gguf.array(a + "." + suffix));
        return array.flatMap(a -> a.values().stream().filter(Long.class::isInstance).map(Long.class::cast)
                .max(Long::compare));
    }
}
