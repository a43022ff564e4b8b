package io.rkllm.ffm;

/**
 * A function of a native library's C API that a binding calls: its symbol, and whether the library is of no use
 * without it (an optional one missing is reported as unsupported when it is needed). The enums of the RKLLM and
 * RKNN APIs name theirs; {@link BoundFunctions} binds them.
 */
public interface NativeFunction {
    String symbol();

    /** Without a required function the library cannot serve at all. */
    boolean required();
}
