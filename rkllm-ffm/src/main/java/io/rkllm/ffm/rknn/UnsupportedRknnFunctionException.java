package io.rkllm.ffm.rknn;

/** The loaded librknnrt.so does not export a function of the RKNN API the caller needs. */
public final class UnsupportedRknnFunctionException extends RknnException {
    private final RknnFunction function;

    public UnsupportedRknnFunctionException(RknnFunction function) {
        super("the RKNN runtime library does not export " + function.symbol(), -1);
        this.function = function;
    }

    public RknnFunction function() {
        return function;
    }
}
