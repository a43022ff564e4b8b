package io.rkllm.ffm.rknn;

/** {@code rknn_tensor_format}. */
public enum TensorFormat {
    NCHW, NHWC, NC1HWC2, UNDEFINED;

    static TensorFormat of(int value) {
        TensorFormat[] all = values();
        return value >= 0 && value < all.length ? all[value] : UNDEFINED;
    }

    int value() {
        return ordinal();
    }
}
