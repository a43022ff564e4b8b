package io.rkllm.ffm.rknn;

/** {@code rknn_tensor_type}; values the runtime does not define map to {@link #UNKNOWN}. */
public enum TensorType {
    FLOAT32, FLOAT16, INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, BOOL, INT4, BFLOAT16, UNKNOWN;

    static TensorType of(int value) {
        TensorType[] all = values();
        return value >= 0 && value < UNKNOWN.ordinal() ? all[value] : UNKNOWN;
    }

    int value() {
        return ordinal();
    }
}
