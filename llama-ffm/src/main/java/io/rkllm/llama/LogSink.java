package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The upcall of {@code llama_log_set}: llama.cpp's log lines (which arrive in pieces) go to SLF4J instead of
 * stderr, its chatty INFO lines at debug level, and each thread's recent warnings and errors are kept so that a
 * failed call can say why in its exception. Nothing escapes the upcall.
 */
final class LogSink {
    private static final Logger LOG = LoggerFactory.getLogger("llama.cpp");
    private static final int DEBUG = 1;
    private static final int INFO = 2;
    private static final int WARN = 3;
    private static final int ERROR = 4;
    private static final int CONT = 5;
    private static final int KEPT = 8;
    private static final long MAX_TEXT = 1 << 16;
    private static final BooleanSupplier NOT_ABORTED = () -> false;

    private final ThreadLocal<StringBuilder> partial = ThreadLocal.withInitial(StringBuilder::new);
    private final ThreadLocal<Integer> partialLevel = ThreadLocal.withInitial(() -> INFO);
    private final ThreadLocal<Deque<String>> problems = ThreadLocal.withInitial(ArrayDeque::new);
    /** Whether the decode this thread runs has been told to stop by its abort check (never, between decodes). */
    private final ThreadLocal<BooleanSupplier> aborted = ThreadLocal.withInitial(() -> NOT_ABORTED);

    MemorySegment stub(Arena arena) {
        try {
            var target = MethodHandles.lookup().findVirtual(LogSink.class, "onLog",
                    MethodType.methodType(void.class, int.class, MemorySegment.class, MemorySegment.class));
            return Linker.nativeLinker().upcallStub(target.bindTo(this),
                    FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, ADDRESS), arena);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Forgets this thread's kept warnings and errors (before a call whose failure should name its own). */
    void clearProblems() {
        problems.get().clear();
    }

    /**
     * This thread runs a decode until {@link #decoded()}; once {@code aborted} says its abort check stopped it,
     * llama.cpp's warnings and errors about it (the graph's computation failed, the batch's cells removed, the
     * decode failed with code 2) are what was asked for, not faults: they are logged at debug level and not kept.
     */
    void decoding(BooleanSupplier aborted) {
        this.aborted.set(aborted);
    }

    /** This thread's decode has returned. */
    void decoded() {
        aborted.set(NOT_ABORTED); // set, not removed: a decode thread sets it at every token
    }

    /** ": " and this thread's recent warnings and errors, or nothing: what a failure's message adds. */
    String reasons() {
        List<String> problems = problems();
        return problems.isEmpty() ? "" : ": " + String.join("; ", problems);
    }

    /** This thread's warnings and errors since {@link #clearProblems()}, oldest first. */
    List<String> problems() {
        return new ArrayList<>(problems.get());
    }

    @SuppressWarnings("unused") // called from native code
    private void onLog(int level, MemorySegment text, MemorySegment userData) {
        try {
            String piece = text.equals(MemorySegment.NULL) ? "" : text.reinterpret(MAX_TEXT).getString(0);
            StringBuilder line = partial.get();
            if (level != CONT) {
                partialLevel.set(level);
            }
            line.append(piece);
            int newline;
            while ((newline = line.indexOf("\n")) >= 0) {
                emit(partialLevel.get(), line.substring(0, newline));
                line.delete(0, newline + 1);
            }
        } catch (Throwable t) {
            try {
                LOG.warn("llama.cpp log line lost: {}", t.toString());
            } catch (Throwable ignored) {
                // nothing may escape an upcall
            }
        }
    }

    private void emit(int level, String line) {
        if (line.isBlank()) {
            return;
        }
        if (level == WARN && line.contains("the full capacity of the model will not be utilized")) {
            level = INFO; // every context shorter than the model's training length says so: a choice, not a fault
        }
        if ((level == ERROR || level == WARN) && aborted.get().getAsBoolean()) {
            LOG.debug("{} (the decode was aborted, as asked)", line);
            return;
        }
        switch (level) {
            case ERROR -> {
                LOG.error("{}", line);
                keep(line);
            }
            case WARN -> {
                LOG.warn("{}", line);
                keep(line);
            }
            case DEBUG -> LOG.trace("{}", line);
            default -> LOG.debug("{}", line);
        }
    }

    private void keep(String line) {
        Deque<String> kept = problems.get();
        kept.addLast(line.strip());
        while (kept.size() > KEPT) {
            kept.removeFirst();
        }
    }
}
