package io.rkllm.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.it.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rkllm-server launch}: each agent client is started against a real server with what it needs. The clients
 * here are stand-ins on the PATH that record their arguments, environment and the files they were given, so that
 * what reaches a real client is asserted exactly.
 */
class LaunchCommandTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private TestServer start() {
        return TestServer.in(dir.resolve("server")).model("big", Map.of("max_context_limit", "65536"))
                .sidecar("big", "context_length: 65536\nfamily: qwen3\ncapabilities: {tools: true}\n")
                .model("small", Map.of()).sidecar("small", "context_length: 4096\nfamily: qwen2.5\n").start();
    }

    /** A stand-in for {@code program}: records its arguments, environment and given config file, exits 7. */
    private Path fake(String program) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path out = Files.createDirectories(dir.resolve("out"));
        Path script = bin.resolve(program);
        Files.writeString(script, """
                #!/bin/sh
                printf '%s\\n' "$@" > OUT/args
                env > OUT/env
                ls "$RKLLM_LAUNCH_DIR" > OUT/files
                for f in "$RKLLM_LAUNCH_DIR"/*; do [ -f "$f" ] && cat "$f" >> OUT/contents; done
                exit 7
                """.replace("OUT", out.toString()));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    private record Result(int code, String out, String err) {
    }

    private Result launch(Path bin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", dir.toString());
        env.put("PATH", bin.toString());
        int code = new Main(env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Map<String, String> recordedEnv() throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : Files.readAllLines(dir.resolve("out/env"))) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                env.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return env;
    }

    private List<String> recordedArgs() throws Exception {
        return Files.readAllLines(dir.resolve("out/args"));
    }

    @Test
    void claudeCodeGetsTheServerTheModelAndNoTelemetryAndItsArgumentsAfterTheSeparator() throws Exception {
        try (TestServer server = start()) {
            Path bin = fake("claude");
            Result r = launch(bin, "launch", "claude", "--url", server.url("/v1"), "--", "-p", "list the files");
            assertThat(r.code()).as(r.err()).isEqualTo(7);
            assertThat(recordedArgs()).containsExactly("--model", "big", "-p", "list the files");
            Map<String, String> env = recordedEnv();
            assertThat(env).containsEntry("ANTHROPIC_BASE_URL", server.url("")).containsEntry("ANTHROPIC_MODEL", "big")
                    .containsEntry("ANTHROPIC_SMALL_FAST_MODEL", "big")
                    .containsEntry("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .containsEntry("DISABLE_TELEMETRY", "1").containsEntry("DISABLE_AUTOUPDATER", "1");
            assertThat(env.get("ANTHROPIC_AUTH_TOKEN")).isNotBlank();
            assertThat(r.out()).contains("claude -> " + server.url("")).contains("model big (context 65536 tokens)")
                    .contains("env ANTHROPIC_BASE_URL=" + server.url(""));
            assertThat(Path.of(env.get("RKLLM_LAUNCH_DIR"))).as("the temporary directory is removed").doesNotExist();
        }
    }

    @Test
    void codexGetsAResponsesProviderOnItsCommandLineAndNothingWritten() throws Exception {
        try (TestServer server = start()) {
            Path bin = fake("codex");
            Result r = launch(bin, "launch", "codex", "--url", server.url(""), "--model", "big", "--", "exec", "hi");
            assertThat(r.code()).as(r.err()).isEqualTo(7);
            List<String> args = recordedArgs();
            assertThat(args).containsSubsequence("-c", "model_provider=\"rkllm\"")
                    .contains("model_providers.rkllm.base_url=\"" + server.url("/v1") + "\"",
                            "model_providers.rkllm.wire_api=\"responses\"", "model=\"big\"",
                            "model_context_window=65536", "analytics.enabled=false", "web_search=\"disabled\"")
                    .endsWith("exec", "hi");
            JsonNode catalog = JSON.readTree(Files.readString(dir.resolve("out/contents")));
            assertThat(catalog.at("/models/0/slug").asText()).isEqualTo("big");
            assertThat(catalog.at("/models/0/context_window").asInt()).isEqualTo(65536);
            assertThat(catalog.at("/models/0/base_instructions").asText()).isEmpty();
        }
    }

    @Test
    void opencodeAndContinueGetTheirConfigurationWithTheModelsContext() throws Exception {
        try (TestServer server = start()) {
            Path bin = fake("opencode");
            assertThat(launch(bin, "launch", "opencode", "--url", server.url("")).code()).isEqualTo(7);
            JsonNode config = JSON.readTree(recordedEnv().get("OPENCODE_CONFIG_CONTENT"));
            assertThat(config.get("model").asText()).isEqualTo("rkllm/big");
            assertThat(config.at("/provider/rkllm/options/baseURL").asText()).isEqualTo(server.url("/v1"));
            assertThat(config.at("/provider/rkllm/npm").asText()).isEqualTo("@ai-sdk/openai-compatible");
            assertThat(config.at("/provider/rkllm/models/big/limit/context").asInt()).isEqualTo(65536);
            assertThat(config.get("autoupdate").asBoolean()).isFalse();

            fake("cn");
            assertThat(launch(bin, "launch", "continue", "--url", server.url(""), "--", "-p", "hi").code())
                    .isEqualTo(7);
            List<String> args = recordedArgs();
            assertThat(args.get(0)).isEqualTo("--config");
            assertThat(args).endsWith("-p", "hi");
            assertThat(Path.of(args.get(1))).as("removed after the run").doesNotExist();
            assertThat(Files.readString(dir.resolve("out/contents"))).contains("provider: openai")
                    .contains("apiBase: " + server.url("/v1")).contains("contextLength: 65536");
        }
    }

    @Test
    void whatCannotBeLaunchedIsSaid() throws Exception {
        try (TestServer server = start()) {
            Path bin = Files.createDirectories(dir.resolve("empty"));
            Result missing = launch(bin, "launch", "claude", "--url", server.url(""));
            assertThat(missing.code()).isEqualTo(1);
            assertThat(missing.err()).contains("'claude' is not on the PATH").contains("npm install -g");

            Result dry = launch(bin, "launch", "codex", "--url", server.url(""), "--dry-run");
            assertThat(dry.code()).isZero();
            assertThat(dry.out()).contains("not installed").contains("model_providers.rkllm.wire_api");

            Result noScheme = launch(bin, "launch", "claude", "--url", "localhost:8080");
            assertThat(noScheme.code()).isEqualTo(2);
            assertThat(noScheme.err()).contains("not an http(s) URL");

            Result after = launch(bin, "--port", "1", "launch", "codex", "--url", server.url(""), "--dry-run", "--",
                    "--foo");
            assertThat(after.code()).as(after.err()).isZero();
            assertThat(after.out()).contains("--foo");

            Result unknown = launch(bin, "launch", "cursor", "--url", server.url(""));
            assertThat(unknown.code()).isEqualTo(2);
            assertThat(unknown.err()).contains("claude, codex, opencode, continue");

            Result noModel = launch(bin, "launch", "claude", "--url", server.url(""), "--model", "nope");
            assertThat(noModel.code()).isEqualTo(1);
            assertThat(noModel.err()).contains("no chat model 'nope'").contains("big");

            Result small = launch(bin, "launch", "claude", "--url", server.url(""), "--model", "small", "--dry-run");
            assertThat(small.out()).contains("note: claude's first request alone is about");
        }
        Result down = launch(dir, "launch", "claude", "--url", "http://127.0.0.1:1");
        assertThat(down.code()).isEqualTo(1);
        assertThat(down.err()).contains("no server answers at http://127.0.0.1:1");
    }
}
