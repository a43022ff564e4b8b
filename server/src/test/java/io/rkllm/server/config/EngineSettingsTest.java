package io.rkllm.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The settings of an engine beyond the built-in ones, declared by its provider: keys of the configuration like any
 * other (defaults, file, environment, flags, --help, unknown keys refused), handed to the provider as text.
 */
class EngineSettingsTest {
    private static final Map<String, Map<String, String>> ECHO = Map.of("echo", Map.of("prefix", "say:",
            "words", "8"));

    @TempDir
    Path dir;

    private ConfigLoader loader() {
        return new ConfigLoader(dir, ECHO);
    }

    @Test
    void theProvidersDefaultsAreKeysOfTheConfiguration() {
        assertThat(loader().defaults()).containsEntry("engines.echo.prefix", "say:").containsEntry("engines.echo.words",
                "8").containsKey("engines.llama.parallel");
        ServerConfig config = loader().load(Optional.empty(), Map.of(), Map.of()).config();
        assertThat(config.engines().settings("echo")).isEqualTo(Map.of("prefix", "say:", "words", "8"));
        assertThat(config.engines().settings("other")).isEmpty();
        assertThat(config.engines().llama().parallel()).isEqualTo(4);
    }

    @Test
    void theFileTheEnvironmentAndFlagsSetThemInThatOrder() throws Exception {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, "engines:\n  echo:\n    prefix: from-file\n    words: 3\n");
        ServerConfig fromFile = loader().load(Optional.of(file), Map.of(), Map.of()).config();
        assertThat(fromFile.engines().settings("echo")).isEqualTo(Map.of("prefix", "from-file", "words", "3"));

        ConfigLoader.Loaded loaded = loader().load(Optional.of(file), Map.of("RKLLM_ENGINES_ECHO_PREFIX", "from-env",
                "RKLLM_ENGINES_ECHO_WORDS", "5"), Map.of("engines.echo.words", "6"));
        assertThat(loaded.config().engines().settings("echo")).isEqualTo(Map.of("prefix", "from-env", "words", "6"));
        assertThat(loaded.sources()).containsEntry("engines.echo.prefix", ConfigLoader.Source.ENVIRONMENT)
                .containsEntry("engines.echo.words", ConfigLoader.Source.FLAG);
    }

    @Test
    void anUnknownKeyOfTheEngineIsRefusedAndANameOfABuiltInSectionIsNotAnEngines() throws Exception {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, "engines:\n  echo:\n    prefx: x\n");
        assertThatThrownBy(() -> loader().load(Optional.of(file), Map.of(), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("unknown key 'engines.echo.prefx'");
        assertThatThrownBy(() -> loader().load(Optional.empty(), Map.of(), Map.of("engines.echo.size", "1")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--engines.echo.size");
        // without the provider, its section is no key at all
        Files.writeString(file, "engines:\n  echo:\n    prefix: x\n");
        assertThatThrownBy(() -> new ConfigLoader(dir).load(Optional.of(file), Map.of(), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("engines.echo");
        assertThatThrownBy(() -> new ConfigLoader(dir, Map.of("llama", Map.of("x", "1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("built-in");
    }
}
