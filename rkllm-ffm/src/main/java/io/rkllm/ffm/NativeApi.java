package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.EnumMap;
import java.util.Map;

/** Downcall handles for every function the library exports, typed for one ABI. */
final class NativeApi {
    private final AbiLayouts layouts;
    private final Map<RkllmFunction, MethodHandle> handles;

    private NativeApi(AbiLayouts layouts, Map<RkllmFunction, MethodHandle> handles) {
        this.layouts = layouts;
        this.handles = handles;
    }

    static NativeApi bind(SymbolLookup lookup, AbiLayouts layouts) {
        Linker linker = Linker.nativeLinker();
        Map<RkllmFunction, MethodHandle> handles = new EnumMap<>(RkllmFunction.class);
        for (RkllmFunction function : RkllmFunction.values()) {
            var symbol = lookup.find(function.symbol());
            if (symbol.isPresent()) {
                handles.put(function, linker.downcallHandle(symbol.get(), descriptor(function, layouts)));
            } else if (function.required()) {
                throw new UnsupportedFunctionException(function);
            }
        }
        return new NativeApi(layouts, handles);
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
        return handles.containsKey(function);
    }

    MethodHandle handle(RkllmFunction function) {
        MethodHandle handle = handles.get(function);
        if (handle == null) {
            throw new UnsupportedFunctionException(function);
        }
        return handle;
    }
}
