package io.rkllm.ffm;

/** The loaded library does not export a function of the RKLLM API (older or trimmed builds). */
public final class UnsupportedFunctionException extends RkllmException {
    private final RkllmFunction function;

    public UnsupportedFunctionException(RkllmFunction function) {
        super("the RKLLM runtime library does not export " + function.symbol());
        this.function = function;
    }

    public RkllmFunction function() {
        return function;
    }
}
