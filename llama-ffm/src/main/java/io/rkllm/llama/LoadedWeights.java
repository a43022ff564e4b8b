package io.rkllm.llama;

import io.rkllm.llama.gguf.GgufFile;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * What a context needs of the model it is made for: the loaded model's handle, its file and header (for messages and
 * the pooling checks), its vocabulary, the width of its embeddings and a reranker's outputs.
 */
record LoadedWeights(MemorySegment handle, Path path, GgufFile header, Vocabulary vocabulary, int embeddingLength,
                     int classifierOutputs) {
}
