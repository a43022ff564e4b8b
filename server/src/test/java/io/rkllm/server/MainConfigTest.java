package io.rkllm.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line: configuration errors exit with 2 naming the key, --help, and the precedence of sources. */
class MainConfigTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private Main main(Map<String, String> env) {
        Map<String, String> all = new HashMap<>(env);
        all.put("HOME", dir.toString());
        all.putIfAbsent("RKLLM_LOGGING_LEVEL", "warn"); // loading sets the root log level of this JVM
        return new Main(all, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /** Runs the default command (serve); a configuration error must stop it before it listens. */
    private int run(Map<String, String> env, String... args) {
        return assertTimeoutPreemptively(Duration.ofSeconds(20), () -> main(env).run(args));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private Path file(String yaml) throws Exception {
        return Files.writeString(dir.resolve("rkllm-server.yaml"), yaml);
    }

    @Test
    void theModelsCommandListsWhatItFoundAndHowItWillServeIt() throws Exception {
        Path models = Files.createDirectories(dir.resolve("models").resolve("Qwen3-1.7B-RK3588-8k"));
        Files.writeString(models.resolve("qwen3-1.7b_w8a8_rk3588.rkllm"), "weights");
        assertThat(main(Map.of()).run(new String[] {"models", "--models", dir.resolve("models").toString(),
                "--cache.slots", "2"})).isEqualTo(Main.OK);
        String listed = out.toString(StandardCharsets.UTF_8);
        assertThat(listed).contains("qwen3-1.7b-rk3588-8k").contains("context 8192").contains("(name)")
                .contains("2 KV cache slots (cache.slots 2)").contains("through the qwen3 chat template")
                .contains("thinking on unless a request turns it off");
    }

    @Test
    void anUnknownKeyInTheFileExitsWith2NamingTheKey() throws Exception {
        Path config = file("server:\n  prot: 8081\n");
        assertThat(run(Map.of(), "--config", config.toString())).isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("server.prot").contains("unknown key").contains(config.toString())
                .contains("server.port"); // the keys of the section are suggested
    }

    @Test
    void aBadValueInTheFileExitsWith2NamingTheKeyAndTheValue() throws Exception {
        Path config = file("server:\n  port: abc\n");
        assertThat(run(Map.of(), "--config", config.toString())).isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("server.port").contains("'abc'").contains("whole number");
    }

    @Test
    void aBadValueFromTheEnvironmentOrAFlagExitsWith2NamingTheKey() {
        assertThat(run(Map.of("RKLLM_SERVER_PORT", "abc"))).isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("server.port").contains("'abc'");
        err.reset();
        assertThat(run(Map.of(), "--queue.keep_alive=soon")).isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("queue.keep_alive").contains("'soon'").contains("duration");
        err.reset();
        assertThat(run(Map.of(), "--port", "70000")).isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("server.port").contains("65535");
        err.reset();
        assertThat(run(Map.of(), "--cache.trim_to=0.05")).isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("cache.trim_to").contains("between 0.1 and 1.0");
    }

    @Test
    void anUnknownFlagExitsWith2NamingTheFlag() {
        assertThat(run(Map.of(), "--server.prot=8081")).isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("--server.prot").contains("unknown option");
        err.reset();
        assertThat(run(Map.of(), "--frobnicate", "yes")).isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("--frobnicate").contains("unknown option");
        err.reset();
        assertThat(run(Map.of(), "--port")).isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("--port").contains("needs a value");
        err.reset();
        assertThat(run(Map.of(), "--simulat")).as("a misspelt flag last on the line").isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("--simulat: unknown option").doesNotContain("needs a value");
        err.reset();
        assertThat(main(Map.of()).run(new String[] {"doctor", "--user"})).isEqualTo(Main.BAD_CONFIG);
        assertThat(err()).contains("--user needs a value");
    }

    @Test
    void helpIsAlsoACommand() {
        assertThat(main(Map.of()).run(new String[] {"help"})).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage", "rkllm-server bench|fuzz|soak|cds-archive",
                "rkllm-server doctor", "RKLLM_SERVER_PORT");
    }

    @Test
    void simulateListsTheSimulatedModelsWhateverModelsDirTheFileSets() throws Exception {
        Path config = file("models:\n  dir: " + dir.resolve("no-models") + "\n");
        assertThat(main(Map.of()).run(new String[] {"models", "--simulate", "--config", config.toString()}))
                .as(err()).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("qwen3-1.7b-sim", "qwen2.5-0.5b-sim",
                "models.dir " + dir.resolve("no-models") + " is not used");
    }

    @Test
    void simulateWithModelsOnTheCommandLineServesThatDirectory() throws Exception {
        Path models = Files.createDirectories(dir.resolve("models").resolve("Mine-RK3588"));
        Files.writeString(models.resolve("mine_w8a8_rk3588.rkllm"), "#rkllm-sim 1\nname: mine\n");
        assertThat(main(Map.of()).run(new String[] {"models", "--simulate", "--models", dir.resolve("models")
                .toString()})).as(err()).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("mine-rk3588").doesNotContain("qwen3-1.7b-sim");
        ConfigLoader.Loaded fileBoth = main(Map.of()).configuration("--config", file(
                "runtime:\n  simulate: true\nmodels:\n  dir: /srv/models\n").toString());
        assertThat(fileBoth.simulatedModels()).as("both keys in one file: its models").isFalse();
        ConfigLoader.Loaded envSimulate = main(Map.of("RKLLM_RUNTIME_SIMULATE", "true")).configuration(
                "--config", file("models:\n  dir: /srv/models\n").toString());
        assertThat(envSimulate.simulatedModels()).as("the environment is above the file").isTrue();
    }

    @Test
    void helpListsEveryKeyWithItsEnvironmentVariable() {
        assertThat(main(Map.of()).run(new String[] {"--help"})).isEqualTo(Main.OK);
        String help = out.toString(StandardCharsets.UTF_8);
        Map<String, String> keys = new ConfigLoader(dir).defaults();
        assertThat(keys).isNotEmpty().containsKeys("server.port", "queue.keep_alive", "timeouts.first_token");
        for (String key : keys.keySet()) {
            assertThat(help).contains(key).contains(ConfigLoader.envName(key));
        }
        assertThat(help).contains("RKLLM_SERVER_PORT");
    }

    @Test
    void theEnvironmentOverridesTheFileAndFlagsOverrideTheEnvironment() throws Exception {
        Path config = file("server:\n  port: 1111\nqueue:\n  max_waiting: 3\n");
        ServerConfig fromFile = main(Map.of()).configuration("--config", config.toString()).config();
        assertThat(fromFile.server().port()).isEqualTo(1111);
        assertThat(fromFile.queue().maxWaiting()).isEqualTo(3);

        Map<String, String> env = Map.of("RKLLM_SERVER_PORT", "2222", "RKLLM_QUEUE_KEEP_ALIVE", "250ms");
        ServerConfig fromEnv = main(env).configuration("--config", config.toString()).config();
        assertThat(fromEnv.server().port()).isEqualTo(2222);
        assertThat(fromEnv.queue().maxWaiting()).as("the file still counts for other keys").isEqualTo(3);
        assertThat(fromEnv.queue().keepAlive()).isEqualTo(Duration.ofMillis(250));

        ServerConfig fromFlag = main(env).configuration("--config", config.toString(), "--port", "3333").config();
        assertThat(fromFlag.server().port()).isEqualTo(3333);
        ServerConfig fromDotted = main(env).configuration("--config", config.toString(), "--server.port=4444",
                "--queue.keep_alive", "2s").config();
        assertThat(fromDotted.server().port()).isEqualTo(4444);
        assertThat(fromDotted.queue().keepAlive()).isEqualTo(Duration.ofSeconds(2));
        assertThat(main(env).configuration("--config", config.toString()).explicitKeys())
                .contains("server.port", "queue.max_waiting", "queue.keep_alive");
    }

    @Test
    void theConfigurationSeamReportsErrorsLikeRun() {
        assertThatThrownBy(() -> main(Map.of()).configuration("--config", dir.resolve("missing.yaml").toString()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("missing.yaml");
        assertThat(run(Map.of(), "--config", dir.resolve("missing.yaml").toString())).isEqualTo(Main.BAD_CONFIG);
    }
}
