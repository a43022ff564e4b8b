package io.rkllm.llama;

import io.rkllm.llama.gguf.GgufFile;

/**
 * Refuses the embedding contexts that would abort the process inside llama.cpp (a GGML_ASSERT ends the JVM, no
 * exception can be caught): RANK pooling without a whole classification head, and in the b4916 generation mean pooling
 * of a causal (decoder) model, whose graph computes only the outputs it is asked for and then multiplies a
 * matrix of the wrong shape.
 */
final class PoolingGuard {
    private PoolingGuard() {
    }

    /** Whether the model attends causally (decoders); {@code <arch>.attention.causal = false} for BERT-like ones. */
    static boolean causal(GgufFile header) {
        return header.architecture().flatMap(a -> java.util.Optional.ofNullable(
                header.metadata().get(a + ".attention.causal"))).map(v -> !Boolean.FALSE.equals(v)).orElse(true);
    }

    static void check(LayoutGeneration generation, GgufFile header, ContextParams params) {
        if (!params.embeddings()) {
            return;
        }
        Pooling pooling = params.pooling();
        if (pooling == Pooling.RANK) {
            // the graph asserts cls and its bias, and cls.output's bias where cls.output is there
            for (String tensor : rankTensors(header)) {
                if (header.tensors().stream().noneMatch(t -> t.name().equals(tensor))) {
                    throw new LlamaException(header.path() + " has no " + tensor + " (its classification head): it "
                            + "cannot rank (RANK pooling is for rerankers)");
                }
            }
        }
        if (pooling == Pooling.MEAN && causal(header) && generation == LayoutGeneration.B4916) {
            throw new LlamaException("llama.cpp " + generation.builds() + " cannot mean-pool the embeddings of a "
                    + "decoder model such as " + header.path().getFileName() + " (it aborts the process): use LAST "
                    + "pooling, or NONE and pool the tokens' embeddings, or a newer llama.cpp build");
        }
    }

    private static java.util.List<String> rankTensors(GgufFile header) {
        boolean output = header.tensors().stream().anyMatch(t -> t.name().equals("cls.output.weight"));
        return output ? java.util.List.of("cls.weight", "cls.bias", "cls.output.bias")
                : java.util.List.of("cls.weight", "cls.bias");
    }
}
