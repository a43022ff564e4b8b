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
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The upcall target of {@code LLMResultCallback}: copies the token bytes (or, in hidden-layer mode,
 * the hidden states) out of the runtime's buffer, which is only valid during the call, and hands
 * them to the current run's session. Nothing may escape it: an exception thrown through an upcall
 * kills the JVM.
 */
final class ResultCallback {
    private static final Logger LOG = LoggerFactory.getLogger(ResultCallback.class);
    static final int NORMAL = 0;
    static final int WAITING = 1;
    static final int FINISH = 2;
    static final int ERROR = 3;
    private static final long MAX_TOKEN_BYTES = 1 << 20;
    private static final long PERF = Structs.offset(AbiLayouts.RESULT, "perf");
    private static final long HIDDEN_STATES = Structs.offset(AbiLayouts.RESULT, "last_hidden_layer.hidden_states");
    private static final long EMBD_SIZE = Structs.offset(AbiLayouts.RESULT, "last_hidden_layer.embd_size");
    private static final long NUM_TOKENS = Structs.offset(AbiLayouts.RESULT, "last_hidden_layer.num_tokens");
    /** 256 M floats (1 GiB): far beyond any real layer (4096 tokens x 4096 wide is 16 M); larger is garbage. */
    private static final long MAX_HIDDEN_FLOATS = 1L << 28;
    /** The 1.3 return value: "release the current output buffer" (the rows are copied by then). */
    private static final int RELEASE_OUTPUT = 2;

    private volatile RunSession current;
    private final Consumer<RunControl> reabort;
    private final boolean releaseOutputBuffer;

    /**
     * @param reabort aborts the run of a control (from another thread)
     * @param releaseOutputBuffer answer 2 once the hidden states are copied (ABI 1.3)
     */
    ResultCallback(Consumer<RunControl> reabort, boolean releaseOutputBuffer) {
        this.reabort = reabort;
        this.releaseOutputBuffer = releaseOutputBuffer;
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
            if (session.collectsHiddenLayer() && (state == NORMAL || state == WAITING)) {
                return onHiddenLayerResult(session, r);
            }
            switch (state) {
                case NORMAL, WAITING -> {
                    session.onBytes(copyText(r.get(ADDRESS, 0)));
                    if (session.needsReabort()) {
                        RunControl control = session.control();
                        Thread.startVirtualThread(() -> reabort.accept(control));
                    }
                }
                case FINISH -> {
                    if (session.collectsHiddenLayer() && !session.hasHiddenLayer()) {
                        copyHiddenLayer(session, r); // a runtime may deliver them with FINISH instead
                    }
                    session.onFinish(perf(r));
                }
                case ERROR -> session.onError("the RKLLM runtime reported an error during the run");
                default -> LOG.warn("RKLLM callback with unknown state {}", state);
            }
        } catch (Throwable t) {
            LOG.error("RKLLM callback failed", t);
        }
        return 0;
    }

    private int onHiddenLayerResult(RunSession session, MemorySegment result) {
        if (session.hasHiddenLayer()) {
            if (session.needsStopAfterHiddenLayer()) {
                RunControl control = session.control();
                Thread.startVirtualThread(() -> reabort.accept(control));
            }
            return 0;
        }
        return copyHiddenLayer(session, result) && releaseOutputBuffer ? RELEASE_OUTPUT : 0;
    }

    /** Copies the result's hidden states, if it carries any, row by row into the session. */
    private static boolean copyHiddenLayer(RunSession session, MemorySegment result) {
        MemorySegment states = result.get(ADDRESS, HIDDEN_STATES);
        int width = result.get(JAVA_INT, EMBD_SIZE);
        int count = result.get(JAVA_INT, NUM_TOKENS);
        if (states.equals(MemorySegment.NULL) || width <= 0 || count <= 0) {
            return false;
        }
        if ((long) width * count > MAX_HIDDEN_FLOATS) {
            session.onError("the RKLLM runtime returned an implausible hidden layer (" + count + " x " + width + ")");
            return false;
        }
        long rowBytes = (long) width * Float.BYTES;
        MemorySegment all = states.reinterpret(rowBytes * count);
        List<float[]> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rows.add(all.asSlice(i * rowBytes, rowBytes).toArray(JAVA_FLOAT));
        }
        session.onHiddenLayer(width, rows);
        return true;
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
