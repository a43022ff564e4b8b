package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The upcall target of {@code LLMResultCallback}: copies the token bytes out of the runtime's
 * buffer and hands them to the current run's session. Nothing may escape it: an exception
 * thrown through an upcall kills the JVM.
 */
final class ResultCallback {
    private static final Logger LOG = LoggerFactory.getLogger(ResultCallback.class);
    static final int NORMAL = 0;
    static final int WAITING = 1;
    static final int FINISH = 2;
    static final int ERROR = 3;
    private static final long MAX_TOKEN_BYTES = 1 << 20;
    private static final long PERF = Structs.offset(AbiLayouts.RESULT, "perf");

    private volatile RunSession current;
    private final Consumer<RunControl> reabort;

    ResultCallback(Consumer<RunControl> reabort) {
        this.reabort = reabort;
    }

    MemorySegment stub(Arena arena) {
        try {
            var target = MethodHandles.lookup().findVirtual(ResultCallback.class, "onResult",
                    MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class, int.class));
            return Linker.nativeLinker().upcallStub(target.bindTo(this),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), arena);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    void begin(RunSession session) {
        current = session;
    }

    void end() {
        current = null;
    }

    @SuppressWarnings("unused") // called from native code
    private int onResult(MemorySegment result, MemorySegment userdata, int state) {
        try {
            RunSession session = current;
            if (session == null) {
                return 0;
            }
            MemorySegment r = result.reinterpret(AbiLayouts.RESULT.byteSize());
            switch (state) {
                case NORMAL, WAITING -> {
                    session.onBytes(copyText(r.get(ADDRESS, 0)));
                    if (session.needsReabort()) {
                        RunControl control = session.control();
                        Thread.startVirtualThread(() -> reabort.accept(control));
                    }
                }
                case FINISH -> session.onFinish(perf(r));
                case ERROR -> session.onError("the RKLLM runtime reported an error during the run");
                default -> LOG.warn("RKLLM callback with unknown state {}", state);
            }
        } catch (Throwable t) {
            LOG.error("RKLLM callback failed", t);
        }
        return 0;
    }

    private static byte[] copyText(MemorySegment text) {
        if (text.equals(MemorySegment.NULL)) {
            return new byte[0];
        }
        MemorySegment bytes = text.reinterpret(MAX_TOKEN_BYTES);
        long length = 0;
        while (length < MAX_TOKEN_BYTES && bytes.get(JAVA_BYTE, length) != 0) {
            length++;
        }
        return bytes.asSlice(0, length).toArray(JAVA_BYTE);
    }

    private static PerfStats perf(MemorySegment result) {
        MemorySegment p = result.asSlice(PERF, AbiLayouts.PERF_STAT.byteSize());
        return new PerfStats(
                p.get(JAVA_FLOAT, Structs.offset(AbiLayouts.PERF_STAT, "prefill_time_ms")),
                p.get(JAVA_INT, Structs.offset(AbiLayouts.PERF_STAT, "prefill_tokens")),
                p.get(JAVA_FLOAT, Structs.offset(AbiLayouts.PERF_STAT, "generate_time_ms")),
                p.get(JAVA_INT, Structs.offset(AbiLayouts.PERF_STAT, "generate_tokens")),
                p.get(JAVA_FLOAT, Structs.offset(AbiLayouts.PERF_STAT, "memory_usage_mb")));
    }
}
