package io.rkllm.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The downcall handles of one library's functions ({@link NativeFunction}s of an enum), bound once: a required
 * function the library does not export fails the binding, an optional one is left out and fails when it is used.
 * One helper for every library the project binds (RKLLM's, RKNN's).
 *
 * @param <F> the enum of the library's functions
 */
public final class BoundFunctions<F extends Enum<F> & NativeFunction> {
    private final Map<F, MethodHandle> handles;
    private final Function<F, ? extends RuntimeException> missing;

    private BoundFunctions(Map<F, MethodHandle> handles, Function<F, ? extends RuntimeException> missing) {
        this.handles = handles;
        this.missing = missing;
    }

    /**
     * Binds every function of {@code type} that {@code lookup} finds.
     *
     * @param descriptors each function's C signature
     * @param missing the exception for a function the library does not export (thrown here for a required one)
     */
    public static <F extends Enum<F> & NativeFunction> BoundFunctions<F> bind(SymbolLookup lookup, Class<F> type,
            Function<F, FunctionDescriptor> descriptors, Function<F, ? extends RuntimeException> missing) {
        Linker linker = Linker.nativeLinker();
        Map<F, MethodHandle> handles = new EnumMap<>(type);
        for (F function : type.getEnumConstants()) {
            var symbol = lookup.find(function.symbol());
            if (symbol.isPresent()) {
                handles.put(function, linker.downcallHandle(symbol.get(), descriptors.apply(function)));
            } else if (function.required()) {
                throw missing.apply(function);
            }
        }
        return new BoundFunctions<>(handles, missing);
    }

    /** Whether the library exports {@code function}. */
    public boolean supports(F function) {
        return handles.containsKey(function);
    }

    /** The downcall handle of {@code function}; the missing-function exception when the library lacks it. */
    public MethodHandle handle(F function) {
        MethodHandle handle = handles.get(function);
        if (handle == null) {
            throw missing.apply(function);
        }
        return handle;
    }
}
