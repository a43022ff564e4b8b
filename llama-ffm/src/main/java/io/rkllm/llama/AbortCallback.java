package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The upcall of {@code llama_set_abort_callback} (a {@code ggml_abort_callback}): ggml asks it between the
 * operations of a decode's graph whether to stop. It asks the current decode's check, which any thread may
 * flip. Nothing escapes it: a check that throws stops the decode.
 */
final class AbortCallback {
    private static final Logger LOG = LoggerFactory.getLogger(AbortCallback.class);
    private static final BooleanSupplier NEVER = () -> false;

    private volatile BooleanSupplier current = NEVER;
    private volatile boolean fired;
    private MemorySegment stub;

    /** The upcall stub (made once, freed with {@code arena}). */
    MemorySegment stub(Arena arena) {
        if (stub != null) {
            return stub;
        }
        try {
            var target = MethodHandles.lookup().findVirtual(AbortCallback.class, "shouldAbort",
                    MethodType.methodType(boolean.class, MemorySegment.class));
            stub = Linker.nativeLinker().upcallStub(target.bindTo(this), FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS),
                    arena);
            return stub;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    void begin(BooleanSupplier check) {
        fired = false;
        current = check;
    }

    /** Ends the decode; true when the check asked to stop during it. */
    boolean end() {
        current = NEVER;
        return fired;
    }

    /** Whether the check has asked the decode under way to stop (read from any thread). */
    boolean fired() {
        return fired;
    }

    @SuppressWarnings("unused") // called from native code, on ggml's threads
    private boolean shouldAbort(MemorySegment data) {
        try {
            if (current.getAsBoolean()) {
                fired = true;
                return true;
            }
            return false;
        } catch (Throwable t) {
            try {
                LOG.warn("abort check failed, stopping the decode: {}", t.toString());
            } catch (Throwable ignored) {
                // nothing may escape an upcall
            }
            fired = true;
            return true;
        }
    }
}
