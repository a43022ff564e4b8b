package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UncapturedStdoutTest {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle OPEN = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("open"),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle DUP = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("dup"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle DUP2 = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("dup2"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("close"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle WRITE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("write"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final int O_WRONLY = 1;

    @TempDir
    Path dir;

    @Test
    void whatIsWrittenReachesTheRealStdoutWhileTheRuntimesOutputIsCaptured() throws Throwable {
        Path stdout = dir.resolve("stdout.txt");
        Files.createFile(stdout);
        NativeOutputCapture.Captured<Integer> captured;
        // fd 1 is the test JVM's own stdout: point it at a file for the test, and restore it after
        int saved = (int) DUP.invokeExact(1);
        try (Arena arena = Arena.ofConfined()) {
            int file = (int) OPEN.invokeExact(arena.allocateFrom(stdout.toString()), O_WRONLY);
            assertThat(file).isNotNegative();
            int ignored = (int) DUP2.invokeExact(file, 1);
            ignored = (int) CLOSE.invokeExact(file);
            try (UncapturedStdout log = UncapturedStdout.open().orElseThrow()) {
                log.write("before\n".getBytes(StandardCharsets.UTF_8));
                captured = new NativeOutputCapture().capture(() -> {
                    try {
                        log.write("a log line while the runtime initialises\n".getBytes(StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    return nativeWrite(1, "I rkllm: rkllm-runtime version: 1.3.0\n");
                });
                log.write("after\n".getBytes(StandardCharsets.UTF_8), 0, 6);
            }
        } finally {
            int ignored = (int) DUP2.invokeExact(saved, 1);
            ignored = (int) CLOSE.invokeExact(saved);
        }
        assertThat(captured.value()).isPositive();
        assertThat(captured.output()).isEqualTo("I rkllm: rkllm-runtime version: 1.3.0\n");
        assertThat(Files.readString(stdout)).isEqualTo("before\na log line while the runtime initialises\nafter\n");
    }

    @Test
    void aClosedStreamRefusesWrites() throws IOException {
        UncapturedStdout log = UncapturedStdout.open().orElseThrow();
        log.close();
        log.close();
        assertThatThrownBy(() -> log.write(new byte[] {'x'})).isInstanceOf(IOException.class);
    }

    @Test
    void aDescriptorThatCannotBeDuplicatedGivesNothing() {
        assertThat(UncapturedStdout.duplicate(-1)).isEmpty();
    }

    private static int nativeWrite(int fd, String text) {
        try (Arena arena = Arena.ofConfined()) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            return (int) (long) WRITE.invokeExact(fd, arena.allocateFrom(text), (long) bytes.length);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
