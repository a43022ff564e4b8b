package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Captures what native code prints to file descriptors 1 and 2 while an action runs, by pointing
 * them at a file: an anonymous in-memory one ({@code memfd_create}), else a temporary file that is
 * deleted at once. The runtime prints its version, the model's limits and its error reasons there
 * during {@code rkllm_init}; the binding reads them instead of guessing.
 * A file, not a pipe: writes to it never block, however much is printed. Public for the RKNN binding
 * ({@code io.rkllm.ffm.rknn}), whose runtime prints the same way during {@code rknn_init}.
 */
public final class NativeOutputCapture {
    private static final int O_WRONLY = 1;
    /** File descriptors are process-wide, so captures must not nest. */
    private static final Object FD_LOCK = new Object();

    private final MethodHandle open;
    private final MethodHandle dup;
    private final MethodHandle dup2;
    private final MethodHandle close;
    private final MethodHandle fflush;
    /** {@code memfd_create}, {@code lseek}, {@code read}; null where the C library lacks memfd_create. */
    private final MethodHandle memfdCreate;
    private final MethodHandle lseek;
    private final MethodHandle read;

    public NativeOutputCapture() {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        open = linker.downcallHandle(libc.findOrThrow("open"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Linker.Option.firstVariadicArg(2));
        dup = linker.downcallHandle(libc.findOrThrow("dup"), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        dup2 = linker.downcallHandle(libc.findOrThrow("dup2"), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
        close = linker.downcallHandle(libc.findOrThrow("close"), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        fflush = linker.downcallHandle(libc.findOrThrow("fflush"), FunctionDescriptor.of(JAVA_INT, ADDRESS));
        var memfd = libc.find("memfd_create");
        memfdCreate = memfd.map(a -> linker.downcallHandle(a, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)))
                .orElse(null);
        lseek = linker.downcallHandle(libc.findOrThrow("lseek"), FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG,
                JAVA_INT));
        read = linker.downcallHandle(libc.findOrThrow("read"), FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
                JAVA_LONG));
    }

    /** What the action returned and what native code printed meanwhile. */
    public record Captured<T>(T value, String output) {
    }

    /** Runs {@code action} with native stdout and stderr going to a file; captures never nest. */
    public <T> Captured<T> capture(Supplier<T> action) {
        synchronized (FD_LOCK) {
            if (memfdCreate != null) {
                try (Arena arena = Arena.ofConfined()) {
                    int fd = (int) memfdCreate.invokeExact(arena.allocateFrom("rkllm-init"), 0);
                    if (fd >= 0) {
                        T value;
                        try {
                            value = redirected(fd, action);
                            return new Captured<>(value, readBack(fd, arena));
                        } finally {
                            int ignored = (int) close.invokeExact(fd);
                        }
                    }
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new IllegalStateException("capturing native output failed", t);
                }
            }
            return captureInTempFile(action);
        }
    }

    /** Runs {@code action} with fds 1 and 2 pointing at {@code fd}; restores them whatever happens. */
    private <T> T redirected(int fd, Supplier<T> action) throws Throwable {
        int savedOut = (int) dup.invokeExact(1);
        int savedErr = (int) dup.invokeExact(2);
        try {
            int ignored = (int) fflush.invokeExact(MemorySegment.NULL);
            ignored = (int) dup2.invokeExact(fd, 1);
            ignored = (int) dup2.invokeExact(fd, 2);
            return action.get();
        } finally {
            int ignored = (int) fflush.invokeExact(MemorySegment.NULL);
            ignored = (int) dup2.invokeExact(savedOut, 1);
            ignored = (int) dup2.invokeExact(savedErr, 2);
            ignored = (int) close.invokeExact(savedOut);
            ignored = (int) close.invokeExact(savedErr);
        }
    }

    /** Everything written to the in-memory file (at most 1 MB). */
    private String readBack(int fd, Arena arena) throws Throwable {
        long ignored = (long) lseek.invokeExact(fd, 0L, 0);
        MemorySegment buffer = arena.allocate(64 * 1024);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        while (out.size() < 1024 * 1024) {
            long n = (long) read.invokeExact(fd, buffer, buffer.byteSize());
            if (n <= 0) {
                break;
            }
            out.write(buffer.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private <T> Captured<T> captureInTempFile(Supplier<T> action) {
        Path file;
        try {
            file = Files.createTempFile("rkllm-init-", ".log");
        } catch (IOException e) {
            return new Captured<>(action.get(), "");
        }
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) open.invokeExact(arena.allocateFrom(file.toString()), O_WRONLY);
            if (fd < 0) {
                return new Captured<>(action.get(), "");
            }
            T value;
            try {
                value = redirected(fd, action);
            } finally {
                int ignored = (int) close.invokeExact(fd);
            }
            return new Captured<>(value, new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("capturing native output failed", t);
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temp file left behind is harmless
            }
        }
    }
}
