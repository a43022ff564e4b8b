package io.rkllm.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.ffm.Abi;
import io.rkllm.ffm.SimulatedRuntime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A missing runtime library or a wrong forced ABI stops the server with a clear message, not a crash. */
class StartupFailureTest {
    @TempDir
    Path dir;

    private record Outcome(int code, String out, String err) {
    }

    private Outcome run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(Map.of("HOME", dir.toString()), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aMissingLibraryIsNamed() {
        Outcome o = run("--library", dir.resolve("nowhere/librkllmrt.so").toString(), "--models", dir.toString(),
                "--port", "0");
        assertThat(o.code()).isEqualTo(1);
        assertThat(o.err()).contains("does not exist").contains("runtime.library");
    }

    @Test
    void aForcedAbiThatContradictsTheLibraryIsRefusedBeforeAnyNativeCall() throws Exception {
        Path lib = SimulatedRuntime.extract(Abi.V1_3, dir.resolve("lib")).orElseThrow();
        Path models = Files.createDirectories(dir.resolve("models/m"));
        Files.writeString(models.resolve("m.rkllm"), "#rkllm-sim 1\ntime_scale: 0\n");
        Outcome o = run("--library", lib.toString(), "--abi", "1.2", "--models", dir.resolve("models").toString(),
                "--port", "0");
        assertThat(o.code()).isEqualTo(1);
        assertThat(o.err()).contains("ABI 1.2 is forced").contains("1.3.0").contains("crashes the process");
        assertThat(o.out()).doesNotContain("listening");
    }
}
