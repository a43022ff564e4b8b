package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/** Downcall handles for every function the library exports, typed for one ABI. */
final class NativeApi {
    private final AbiLayouts layouts;
    private final BoundFunctions<RkllmFunction> functions;

    private NativeApi(AbiLayouts layouts, BoundFunctions<RkllmFunction> functions) {
        this.layouts = layouts;
        this.functions = functions;
    }

    static NativeApi bind(SymbolLookup lookup, AbiLayouts layouts) {
        return new NativeApi(layouts, BoundFunctions.bind(lookup, RkllmFunction.class,
                function -> descriptor(function, layouts), UnsupportedFunctionException::new));
    }

    private static FunctionDescriptor descriptor(RkllmFunction function, AbiLayouts layouts) {
        return switch (function) {
            case CREATE_DEFAULT_PARAM -> FunctionDescriptor.of(layouts.param());
            case INIT -> FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
            case RUN -> FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
            case ABORT, DESTROY, IS_RUNNING, RELEASE_PROMPT_CACHE -> FunctionDescriptor.of(JAVA_INT, ADDRESS);
            case CLEAR_KV_CACHE -> FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS);
            case GET_KV_CACHE_SIZE, LOAD_PROMPT_CACHE, LOAD_LORA -> FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
            case SET_CHAT_TEMPLATE, SET_FUNCTION_TOOLS ->
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
        };
    }

    AbiLayouts layouts() {
        return layouts;
    }

    boolean supports(RkllmFunction function) {
        return functions.supports(function);
    }

    MethodHandle handle(RkllmFunction function) {
        return functions.handle(function);
    }
}
