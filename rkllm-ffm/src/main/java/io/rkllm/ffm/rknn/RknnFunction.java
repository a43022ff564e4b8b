package io.rkllm.ffm.rknn;

import io.rkllm.ffm.NativeFunction;

/** The functions of the RKNN C API the encoder uses; the optional ones are reported as unsupported when missing. */
public enum RknnFunction implements NativeFunction {
    INIT("rknn_init", true),
    DESTROY("rknn_destroy", true),
    QUERY("rknn_query", true),
    INPUTS_SET("rknn_inputs_set", true),
    RUN("rknn_run", true),
    OUTPUTS_GET("rknn_outputs_get", true),
    OUTPUTS_RELEASE("rknn_outputs_release", true),
    /** Multi-core NPUs only (RK3588: 3 cores, RK3576: 2). */
    SET_CORE_MASK("rknn_set_core_mask", false);

    private final String symbol;
    private final boolean required;

    RknnFunction(String symbol, boolean required) {
        this.symbol = symbol;
        this.required = required;
    }

    @Override
    public String symbol() {
        return symbol;
    }

    /** Without a required function no encoder can run. */
    @Override
    public boolean required() {
        return required;
    }
}
