package io.rkllm.ffm.rknn;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.rkllm.ffm.BoundFunctions;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * Downcall handles of the RKNN functions a library exports. {@code rknn_context} is a {@code uint64_t}
 * on every 64-bit target (JAVA_LONG); {@code uint32_t} counts and sizes and the enums are JAVA_INT.
 */
final class RknnApi {
    private final BoundFunctions<RknnFunction> functions;

    private RknnApi(BoundFunctions<RknnFunction> functions) {
        this.functions = functions;
    }

    static RknnApi bind(SymbolLookup lookup) {
        return new RknnApi(BoundFunctions.bind(lookup, RknnFunction.class, RknnApi::descriptor,
                UnsupportedRknnFunctionException::new));
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
        return functions.supports(function);
    }

    MethodHandle handle(RknnFunction function) {
        return functions.handle(function);
    }
}
