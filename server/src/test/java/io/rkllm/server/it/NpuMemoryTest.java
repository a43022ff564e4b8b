package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runtime 1.3.0 crashes the process (SIGSEGV) on an {@code rkllm_init} that runs out of NPU memory, where 1.2.3
 * returns -1. The simulated runtime does the same beyond its memory budget, so the server's own loads are run in a
 * child process ({@link NpuMemoryScenario}): on 1.3 the server unloads idle models first, waits for a busy one to
 * finish, and refuses a model that can never fit with a 503, never attempting an init that would crash; on 1.2 it
 * lets the runtime refuse, which it does cleanly.
 */
class NpuMemoryTest {
    @TempDir
    Path dir;

    private Map<String, String> scenario(String abi) throws IOException, InterruptedException {
        Path errorFile = dir.resolve("hs_err.log");
        Path console = dir.resolve("child.out");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + errorFile, "-XX:+UseSerialGC", "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), NpuMemoryScenario.class.getName(), dir.toString(), abi)
                .redirectErrorStream(true).redirectOutput(console.toFile()).start();
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("child JVM ended").isTrue();
        String output = Files.readString(console, StandardCharsets.UTF_8);
        assertThat(errorFile).as("the JVM did not crash:\n" + output).doesNotExist();
        assertThat(child.exitValue()).as(output).isZero();
        Map<String, String> seen = new LinkedHashMap<>();
        output.lines().filter(l -> l.startsWith("scenario ")).forEach(l -> {
            int eq = l.indexOf('=');
            seen.put(l.substring("scenario ".length(), eq), l.substring(eq + 1));
        });
        assertThat(seen).as(output).containsEntry("end", "clean");
        seen.put("console", output);
        return seen;
    }

    @Test
    void onRuntime13TheServerUnloadsFirstOrRefusesAndNeverCrashes() throws Exception {
        Map<String, String> seen = scenario("1.3");
        assertThat(seen.get("1.a")).isEqualTo("200 a");
        assertThat(seen.get("2.b")).as("a was unloaded to make room").isEqualTo("200 b");
        assertThat(seen.get("3.c")).startsWith("503 insufficient_memory model c needs about 4000 MB")
                .contains("only 3000 MB are free").contains("rknn-llm#522");
        assertThat(seen.get("4.a")).isEqualTo("200 a");
        assertThat(seen.get("5.a")).as("after the busy model finished").isEqualTo("200 a");
        assertThat(seen.get("busy.finish")).isEqualTo("stop");
        assertThat(List.of(seen.get("events").split(","))).containsExactly(
                "init:a:ok", "run:a",
                "destroy:a", "init:b:ok", "run:b",
                "destroy:b", "init:a:ok", "run:a",
                "destroy:a", "init:b:ok", "run:b", "destroy:b", "init:a:ok", "run:a");
        assertThat(seen.get("console")).contains("not loading: model c needs about 4000 MB");
    }

    @Test
    void onRuntime12TheRuntimeRefusesCleanlyAndTheLoadedModelKeepsServing() throws Exception {
        Map<String, String> seen = scenario("1.2");
        assertThat(seen.get("1.a")).isEqualTo("200 a");
        assertThat(seen.get("2.b")).startsWith("503 model_load_failed").contains("not enough NPU memory");
        assertThat(seen.get("3.c")).startsWith("503 model_load_failed").contains("not enough NPU memory");
        assertThat(seen.get("4.a")).isEqualTo("200 a");
        assertThat(List.of(seen.get("events").split(","))).containsExactly(
                "init:a:ok", "run:a", "init:b:error", "init:c:error", "run:a");
    }
}
