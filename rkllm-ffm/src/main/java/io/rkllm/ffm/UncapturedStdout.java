package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * An output stream on a duplicate of the process's standard output, taken before any capture. While
 * {@code rkllm_init} runs, the binding points file descriptors 1 and 2 at a file to read what the
 * runtime prints ({@link NativeOutputCapture}); the server's log written here still reaches the real
 * standard output (the journal, the terminal) at once, instead of being captured with the runtime's
 * lines. Writes are unbuffered: one {@code write(2)} per call, as the log appender flushes each line.
 */
public final class UncapturedStdout extends OutputStream {
    private static final int F_DUPFD_CLOEXEC = 1030;
    private static final int STDOUT = 1;
    /** The duplicate gets a descriptor above the standard three. */
    private static final int LOWEST_FD = 3;

    private final MethodHandle write;
    private final MethodHandle close;
    private final int fd;
    private boolean closed;

    private UncapturedStdout(MethodHandle write, MethodHandle close, int fd) {
        this.write = write;
        this.close = close;
        this.fd = fd;
    }

    /** A duplicate of standard output, or empty where the C library cannot make one. */
    public static Optional<UncapturedStdout> open() {
        return duplicate(STDOUT);
    }

    /** A duplicate of {@code sourceFd} (close-on-exec), or empty when {@code fcntl} fails. */
    static Optional<UncapturedStdout> duplicate(int sourceFd) {
        try {
            Linker linker = Linker.nativeLinker();
            var libc = linker.defaultLookup();
            MethodHandle fcntl = linker.downcallHandle(libc.findOrThrow("fcntl"),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
            MethodHandle write = linker.downcallHandle(libc.findOrThrow("write"),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
            MethodHandle close = linker.downcallHandle(libc.findOrThrow("close"),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            int fd = (int) fcntl.invokeExact(sourceFd, F_DUPFD_CLOEXEC, LOWEST_FD);
            return fd < 0 ? Optional.empty() : Optional.of(new UncapturedStdout(write, close, fd));
        } catch (Error e) {
            throw e;
        } catch (Throwable t) { // no fcntl/write/close in the C library, or the call failed: log through System.out
            return Optional.empty();
        }
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] bytes, int offset, int length) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
        if (closed) {
            throw new IOException("stream closed");
        }
        if (length == 0) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(length);
            MemorySegment.copy(bytes, offset, buffer, JAVA_BYTE, 0, length);
            long done = 0;
            while (done < length) {
                long n = (long) write.invokeExact(fd, buffer.asSlice(done), length - done);
                if (n <= 0) {
                    throw new IOException("write to standard output failed");
                }
                done += n;
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("write to standard output failed", t);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int ignored = (int) close.invokeExact(fd);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("close failed", t);
        }
    }
}
