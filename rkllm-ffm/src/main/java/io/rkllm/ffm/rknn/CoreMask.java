package io.rkllm.ffm.rknn;

/**
 * {@code rknn_core_mask}: the NPU cores an encoder runs on. {@link #AUTO} (the runtime's default) runs a
 * model on one core of its choice; the official multimodal demo uses {@link #CORES_0_1_2} on the RK3588's
 * three cores and {@link #CORES_0_1} on the RK3576's two, which is how the published encoder timings were
 * measured.
 */
public enum CoreMask {
    AUTO(0),
    CORE_0(1),
    CORE_1(2),
    CORE_2(4),
    CORES_0_1(3),
    CORES_0_1_2(7),
    /** Every core of the platform, chosen by the runtime. */
    ALL(0xffff);

    private final int value;

    CoreMask(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }
}
