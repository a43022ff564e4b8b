package io.rkllm.llama.gguf;

import java.util.Optional;

/**
 * One entry of a GGUF file's tensor table: name, shape (ggml order, the first dimension is the contiguous one),
 * type and offset from the start of the data section.
 */
public record GgufTensor(String name, long[] shape, int typeId, Optional<TensorType> type, long offset) {

    public long elements() {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return n;
    }

    /** The tensor's bytes in the file, when its type is known. */
    public Optional<Long> bytes() {
        return type.map(t -> t.bytes(elements()));
    }
}
