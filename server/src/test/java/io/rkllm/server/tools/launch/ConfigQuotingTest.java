package io.rkllm.server.tools.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agents' settings quote the model and the key as TOML and YAML strings: a control character in them is
 * escaped (it used to be written as it was: a newline ended Codex's {@code -c} value and Continue's YAML line).
 */
class ConfigQuotingTest {
    private static final Target ODD = new Target("http://127.0.0.1:8080", Optional.of("k\"\\\u0001"), "a\nb\"c", 4096);

    @TempDir
    Path dir;

    @Test
    void codexSettingsEscapeTheModelName() throws Exception {
        LaunchPlan plan = new CodexCli().plan(ODD, dir, List.of());
        assertThat(plan.arguments()).contains("model=\"a\\nb\\\"c\"");
    }

    @Test
    void continueConfigurationEscapesTheModelNameAndKey() throws Exception {
        new ContinueCli().plan(ODD, dir, List.of());
        String yaml = Files.readString(dir.resolve("continue-config.yaml"));
        assertThat(yaml).contains("  - name: \"a\\nb\\\"c\"\n", "    apiKey: \"k\\\"\\\\\\u0001\"\n");
    }
}
