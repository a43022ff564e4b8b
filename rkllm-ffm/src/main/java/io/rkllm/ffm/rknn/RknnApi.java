package io.rkllm.ffm.rknn;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.EnumMap;
import java.util.Map;

/**
 * Downcall handles of the RKNN functions a library exports. {@code rknn_context} is a {@code uint64_t}
 * on every 64-bit target (JAVA_LONG); {@code uint32_t} counts and sizes and the enums are JAVA_INT.
 */
final class RknnApi {
    private final Map<RknnFunction, MethodHandle> handles;

    private RknnApi(Map<RknnFunction, MethodHandle> handles) {
        this.handles = handles;
    }

    static RknnApi bind(SymbolLookup lookup) {
        Linker linker = Linker.nativeLinker();
        Map<RknnFunction, MethodHandle> handles = new EnumMap<>(RknnFunction.class);
        for (RknnFunction function : RknnFunction.values()) {
            var symbol = lookup.find(function.symbol());
            if (symbol.isPresent()) {
                handles.put(function, linker.downcallHandle(symbol.get(), descriptor(function)));
            } else if (function.required()) {
                throw new UnsupportedRknnFunctionException(function);
            }
        }
        return new RknnApi(handles);
    }

    private static FunctionDescriptor descriptor(RknnFunction function) {
        return switch (function) {
            // int rknn_init(rknn_context* ctx, void* model, uint32_t size, uint32_t flag, rknn_init_extend* ext)
            case INIT -> FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS);
            case DESTROY -> FunctionDescriptor.of(JAVA_INT, JAVA_LONG);
            // int rknn_query(rknn_context, rknn_query_cmd, void* info, uint32_t size)
            case QUERY -> FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT);
            // int rknn_inputs_set(rknn_context, uint32_t n, rknn_input inputs[]); same for outputs_release
            case INPUTS_SET, OUTPUTS_RELEASE -> FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS);
            case SET_CORE_MASK -> FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT);
            case RUN -> FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS);
            // int rknn_outputs_get(rknn_context, uint32_t n, rknn_output outputs[], rknn_output_extend* ext)
            case OUTPUTS_GET -> FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS);
        };
    }

    boolean supports(RknnFunction function) {
        return handles.containsKey(function);
    }

    MethodHandle handle(RknnFunction function) {
        MethodHandle handle = handles.get(function);
        if (handle == null) {
            throw new UnsupportedRknnFunctionException(function);
        }
        return handle;
    }
}
