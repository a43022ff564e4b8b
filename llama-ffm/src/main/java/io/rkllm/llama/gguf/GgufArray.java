package io.rkllm.llama.gguf;

import java.util.List;

/**
 * An array value of GGUF metadata. {@code values} holds the elements (Long, Double, Boolean or String, as for
 * scalars) unless the array was longer than the reader keeps, then it is empty and only {@code length} is known.
 */
public record GgufArray(GgufValueType elementType, long length, List<Object> values) {

    public boolean complete() {
        return values.size() == length;
    }
}
