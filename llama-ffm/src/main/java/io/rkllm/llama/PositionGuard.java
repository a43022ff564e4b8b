package io.rkllm.llama;

import io.rkllm.llama.gguf.GgufFile;

/**
 * Refuses a context longer than a model's learned position table ({@code position_embd}: BERT-like encoders and
 * rerankers, GPT-2): llama.cpp only warns when the context exceeds the training length, and a token placed past the
 * table's last row then fails ggml's bounds assertion, which ends the process. Models with rotary positions have no
 * such table and may run past their training length.
 */
final class PositionGuard {
    private PositionGuard() {
    }

    static void check(GgufFile header, ContextParams params) {
        if (params.contextLength() == 0) {
            return; // the training length: as long as the table
        }
        header.tensors().stream().filter(t -> t.name().equals("position_embd.weight") && t.shape().length == 2)
                .findFirst().ifPresent(table -> {
                    long positions = table.shape()[1];
                    if (params.contextLength() > positions) {
                        throw new LlamaException(header.path().getFileName() + " has learned positions for "
                                + positions + " tokens: a context of " + params.contextLength() + " cannot be used "
                                + "with it (at most " + positions + ")");
                    }
                });
    }
}
