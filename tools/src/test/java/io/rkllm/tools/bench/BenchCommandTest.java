package io.rkllm.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A bench pointed at a server that is not there says so in one line and fails, whichever workload it is. */
class BenchCommandTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"conversations", "long-chat", "embeddings", "images"})
    void aServerThatCannotBeReachedIsOneLineOnTheErrorStream(String kind) throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new BenchCommand(Map.of(), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(CommandLine.parse(Set.of("bench"),
                Set.of("url"), "bench", kind, "--url", "http://127.0.0.1:" + closed), new ConfigLoader(dir));

        assertThat(code).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("rkllm-server bench: ")
                .contains("(is the server at that URL running?)").hasLineCount(1);
    }
}
