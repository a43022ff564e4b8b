package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real SIGTERM to a server child process (the way systemctl stop ends it) during a streaming
 * generation: the generation completes, every model is destroyed (the simulated runtime's trace
 * says so), and the process exits with 0.
 */
class GracefulShutdownTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void sigtermFinishesTheRunningGenerationDestroysTheModelAndExitsZero() throws Exception {
        Path trace = dir.resolve("trace.jsonl");
        ChildServer child = ChildServer.start(dir, System.getProperty("java.class.path"),
                // the simulated model decodes at 33 tokens/s: 100 tokens take about 3 s
                Map.of("RKLLM_SIM_TRACE", trace.toString(), "RKLLM_SIM_TIME_SCALE", "1"), "--logging.access_log=false");
        Process server = child.process();
        Path console = child.console();
        try {
            int port = child.awaitPort();
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("""
                            {"model": "qwen2.5-0.5b-sim", "stream": true, "max_tokens": 100,
                             "messages": [{"role": "user", "content": "[[tokens:100]]"}]}"""))
                    .build();
            HttpResponse<java.util.stream.Stream<String>> response =
                    client.send(request, HttpResponse.BodyHandlers.ofLines());
            assertThat(response.statusCode()).isEqualTo(200);
            List<String> events = new ArrayList<>();
            boolean signalled = false;
            int afterSignal = 0;
            for (String line : (Iterable<String>) response.body()::iterator) {
                if (!line.startsWith("data: ")) {
                    continue;
                }
                events.add(line);
                if (signalled) {
                    afterSignal++;
                }
                if (!signalled && line.contains("\"content\"") && !line.contains("\"content\":\"\"")) {
                    server.toHandle().destroy();   // SIGTERM, with tokens still to come
                    signalled = true;
                }
            }
            assertThat(signalled).as("a token arrived before the end").isTrue();
            assertThat(events.getLast()).isEqualTo("data: [DONE]");
            assertThat(afterSignal).as("tokens streamed after SIGTERM").isGreaterThan(50);
            assertThat(String.join("\n", events)).contains("\"finish_reason\":\"length\"");

            assertThat(server.waitFor(60, TimeUnit.SECONDS)).as("the server stops").isTrue();
            List<String> log = Files.readAllLines(console);
            assertThat(server.exitValue()).as(String.join("\n", log)).isZero();
            assertThat(log).contains("stopped");

            List<String> calls = new ArrayList<>();
            for (String line : Files.readAllLines(trace)) {
                JsonNode node = JSON.readTree(line);
                calls.add(node.path("call").asText() + (node.has("result") ? ":" + node.path("result").asText() : ""));
            }
            assertThat(calls).containsSubsequence("init:ok", "run:finish", "destroy");
            assertThat(calls.getLast()).isEqualTo("destroy");
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new AssertionError("console:\n" + Files.readString(console), e);
        } finally {
            child.destroyIfAlive();
        }
    }
}
