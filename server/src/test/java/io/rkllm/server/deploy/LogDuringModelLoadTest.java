package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production logging (a server child process without the tests' logback-test.xml on its class path)
 * while a model loads: the binding captures the process's stdout to read what rkllm_init prints, and a
 * request served meanwhile must still be logged at once, as itself, not later as one of the runtime's
 * "runtime:" lines.
 */
class LogDuringModelLoadTest {
    @TempDir
    Path dir;

    @Test
    void aRequestLoggedWhileTheRuntimeInitialisesIsNotTakenForTheRuntimesOutput() throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.endsWith("test-classes"))
                .collect(Collectors.joining(File.pathSeparator));
        // the simulated rkllm_init takes about 1 s at scale 1: 3 s here, time enough to be served meanwhile
        ChildServer child = ChildServer.start(dir, classPath, Map.of("RKLLM_SIM_TIME_SCALE", "3"), "--cache.slots=1");
        Process server = child.process();
        try {
            int port = child.awaitPort();
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            CompletableFuture<HttpResponse<String>> chat = client.sendAsync(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("""
                            {"model": "qwen2.5-0.5b-sim", "max_tokens": 2,
                             "messages": [{"role": "user", "content": "hi"}]}"""))
                    .build(), HttpResponse.BodyHandlers.ofString());
            child.await(Pattern.compile("ModelLoading - loading model qwen2.5-0.5b-sim"));
            HttpResponse<String> health = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/health")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(chat.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            server.toHandle().destroy();
            assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();

            List<String> log = Files.readAllLines(child.console());
            String all = String.join("\n", log);
            int healthLine = indexOf(log, " INFO  access - GET /health 200 ");
            int runtimeLine = indexOf(log, " INFO  Model - runtime: I rkllm: rkllm-runtime version: 1.3.0");
            assertThat(healthLine).as(all).isNotNegative();
            assertThat(runtimeLine).as("the runtime's own lines are still logged:\n" + all).isNotNegative();
            assertThat(healthLine).as("the /health line is written while rkllm_init runs, before its output:\n" + all)
                    .isLessThan(runtimeLine);
            assertThat(log).as(all).noneMatch(line -> line.contains("runtime:") && line.contains("access"));
        } finally {
            child.destroyIfAlive();
        }
    }

    private static int indexOf(List<String> lines, String part) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(part)) {
                return i;
            }
        }
        return -1;
    }
}
