package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code llama_set_abort_callback} is given (a {@code ggml_abort_callback} and its data): ggml asks it after
 * every operation of a decode's graph whether to stop, on the thread that computes while the others wait at the next
 * barrier, so whatever it costs is paid hundreds of times a decode.
 *
 * <p>A Java upcall there cost a prompt's decode a few milliseconds (a small model's 20-token prompt: 29 ms instead of
 * 23 against llama-server, which installs no callback). So the callback is native and costs nanoseconds: libc's
 * {@code strlen}, given a two-byte string that is the flag ({@code "\0"}: go on; {@code "\1"}: stop) – a function of
 * one pointer whose result is zero or one, as a {@code bool (*)(void *)} reads it on x86_64 and arm64. The check of
 * a decode that may be stopped is asked as it starts, then by a watcher thread while it runs, which raises the flag
 * when it says stop (or fails): first {@link #POLL_NANOS} after the start, then at twice the previous wait each time,
 * up to {@link #MAX_POLL_NANOS}. Each turn of the watcher takes a core from ggml's threads, which wait for each other
 * after every operation: a 600 ms prompt step of a small model asked every 5 ms lost about 1% of its speed on two
 * cores. Whoever makes the check say stop calls {@link #recheck()}, which raises the flag at once. Where
 * {@code strlen} cannot be found, the upcall stands in. Nothing escapes either.
 */
final class AbortCallback {
    private static final Logger LOG = LoggerFactory.getLogger(AbortCallback.class);
    private static final BooleanSupplier NEVER = () -> false;
    /** The watcher's first wait after a decode's start. */
    static final long POLL_NANOS = 2_000_000;
    /** The watcher's longest wait: a check that turns to stop on its own is seen at most this much later. */
    static final long MAX_POLL_NANOS = 80_000_000;
    private static final VarHandle FLAG = JAVA_BYTE.varHandle();

    private final Optional<MemorySegment> strlen = Linker.nativeLinker().defaultLookup().find("strlen");
    private volatile BooleanSupplier current = NEVER;
    private volatile boolean fired;
    private Thread watcher;
    /** The check of the decode under way that the watcher asks; null between decodes. */
    private volatile BooleanSupplier watched;
    /** Counts the decodes that began (guarded by this): the watcher tells a new decode from the one it waited on. */
    private long begun;
    private boolean closed;
    private MemorySegment stub;
    private MemorySegment flag;

    /** The callback's function (made once, freed with {@code arena}). */
    MemorySegment stub(Arena arena) {
        if (stub != null) {
            return stub;
        }
        if (strlen.isPresent()) {
            flag = arena.allocate(2); // zeroed: "", go on
            stub = strlen.get();
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

    /** The callback's data: the flag {@code strlen} reads, or NULL for the upcall. */
    MemorySegment data() {
        return flag == null ? MemorySegment.NULL : flag;
    }

    /** A decode starts; {@code check} says when to stop it (null: never, and nothing watches). */
    synchronized void begin(BooleanSupplier check) {
        fired = false;
        begun++;
        current = check == null ? NEVER : check;
        if (flag != null) {
            // asked once here: a decode whose runs were all cancelled before it started stops at its first operation
            FLAG.setVolatile(flag, 0L, check != null && ask(check) ? (byte) 1 : (byte) 0);
            if (check != null && !fired) {
                watched = check;
                if (watcher == null) {
                    watcher = Thread.ofPlatform().name("llama-abort-watch").daemon(true).start(this::watch);
                }
                LockSupport.unpark(watcher);
            }
        }
    }

    /**
     * Asks the check of the decode under way now, from any thread: one that has just turned to stop (a run was
     * cancelled) stops the decode at its next operation instead of at the watcher's next turn.
     */
    synchronized void recheck() {
        BooleanSupplier check = watched;
        if (check != null && flag != null && ask(check)) {
            FLAG.setVolatile(flag, 0L, (byte) 1);
            watched = null;
        }
    }

    /** Ends the decode; true when the check asked to stop during it. The watcher raises nothing for it after this. */
    synchronized boolean end() {
        current = NEVER;
        watched = null;
        return fired;
    }

    /** Whether the check has asked the decode under way to stop (read from any thread). */
    boolean fired() {
        return fired;
    }

    /** The context is freed: the watcher ends. */
    synchronized void close() {
        closed = true;
        watched = null;
        if (watcher != null) {
            LockSupport.unpark(watcher);
        }
    }

    /**
     * The watcher: one thread a context, parked between decodes (a thread ready to run when a decode starts, rather
     * than one made for it, which a busy machine may not run before a short decode ends); while one runs, asks its
     * check after {@link #POLL_NANOS}, then at waits that double up to {@link #MAX_POLL_NANOS}.
     */
    private void watch() {
        long last = -1;
        long wait = POLL_NANOS;
        while (true) {
            BooleanSupplier check;
            long decode;
            synchronized (this) {
                if (closed) {
                    return;
                }
                check = watched;
                decode = begun;
            }
            if (check == null) {
                LockSupport.park(this);
                continue;
            }
            if (decode != last) { // a new decode: its first wait is the shortest
                last = decode;
                wait = POLL_NANOS;
                LockSupport.parkNanos(this, wait);
                continue;
            }
            if (ask(check)) {
                synchronized (this) {
                    if (watched == check) { // the decode it was asked for still runs
                        FLAG.setVolatile(flag, 0L, (byte) 1);
                        watched = null;
                    }
                }
                continue;
            }
            wait = Math.min(MAX_POLL_NANOS, wait * 2);
            LockSupport.parkNanos(this, wait);
        }
    }

    private boolean ask(BooleanSupplier check) {
        try {
            if (check.getAsBoolean()) {
                fired = true;
                return true;
            }
            return false;
        } catch (Throwable t) {
            try {
                LOG.warn("abort check failed, stopping the decode: {}", t.toString());
            } catch (Throwable ignored) {
                // nothing may escape
            }
            fired = true;
            return true;
        }
    }

    @SuppressWarnings("unused") // called from native code, on ggml's threads, where strlen is missing
    private boolean shouldAbort(MemorySegment data) {
        return ask(current);
    }
}
