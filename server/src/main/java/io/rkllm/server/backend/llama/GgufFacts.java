package io.rkllm.server.backend.llama;

import io.rkllm.server.models.ModelFacts;
import io.rkllm.server.models.ModelHeader;
import java.util.Objects;
import java.util.Optional;

/**
 * What llama.cpp's provider knows of a GGUF model from its file's header: read once at discovery by the pure-Java
 * reader, never by loading the model.
 *
 * @param header          what the header says of the model
 * @param kvBytesPerToken what one token takes in the KV cache at F16 (keys and values of every layer); 0 unknown
 * @param sequences       conversations one loaded copy runs at once ({@code engines.llama.parallel}); they share
 *                        its one KV cache
 * @param laterPartsBytes the bytes of a split model's other parts, which load with its first
 * @param layout          how its conversations hold their KV cells ({@code engines.llama.kv_cache})
 */
public record GgufFacts(ModelHeader modelHeader, long kvBytesPerToken, int sequences, long laterPartsBytes,
                        KvLayout layout) implements ModelFacts {

    public GgufFacts {
        Objects.requireNonNull(modelHeader, "modelHeader");
        Objects.requireNonNull(layout, "layout");
    }

    /** With one shared cache. */
    public GgufFacts(ModelHeader modelHeader, long kvBytesPerToken, int sequences, long laterPartsBytes) {
        this(modelHeader, kvBytesPerToken, sequences, laterPartsBytes, KvLayout.SHARED);
    }

    /** The same facts, its conversations holding their KV cells as {@code value} says. */
    public GgufFacts withLayout(KvLayout value) {
        return new GgufFacts(modelHeader, kvBytesPerToken, sequences, laterPartsBytes, value);
    }

    /**
     * Whether each conversation (and the background tasks) has a KV cache of its own of {@code context} cells, for a
     * model of {@code fileBytes} (its parts together); never for an embedding model, whose context is one text's.
     */
    public boolean perConversation(long fileBytes, int context) {
        return modelHeader.pooling().isEmpty() && layout.perConversation(kvBytesPerToken, context, sequences, fileBytes,
                KvMemory.trained(modelHeader));
    }

    @Override
    public long otherFilesBytes() {
        return laterPartsBytes;
    }

    @Override
    public String engine() {
        return LlamaProvider.NAME;
    }

    @Override
    public String format() {
        return "gguf";
    }

    @Override
    public Optional<ModelHeader> header() {
        return Optional.of(modelHeader);
    }

    @Override
    public int parallel() {
        return sequences;
    }

    /** Its sequences are those of one context, sharing its one KV cache. */
    @Override
    public boolean oneCopyServesAll() {
        return true;
    }

    @Override
    public Optional<String> kvCache(long fileBytes, int context) {
        if (modelHeader.pooling().isPresent()) {
            return Optional.empty();
        }
        return Optional.of(perConversation(fileBytes, context) ? "per_conversation" : "shared");
    }

    /**
     * A loaded GGUF model: its weights (the file, mapped), the F16 KV cache of {@code context} tokens that all its
     * sequences share, or one for each of them and the tasks ({@link #perConversation}), and llama.cpp's compute
     * buffers (about a tenth of the weights, at least 64 MB). Without the KV size in the header, as much as a file
     * that is not read.
     */
    @Override
    public long copyBytes(long fileBytes, int context) {
        if (kvBytesPerToken <= 0) {
            return ModelFacts.opaqueCopyBytes(fileBytes);
        }
        int caches = perConversation(fileBytes, context) ? KvMemory.caches(sequences) : 1;
        return fileBytes + kvBytesPerToken * context * caches + KvMemory.computeBytes(fileBytes);
    }
}
