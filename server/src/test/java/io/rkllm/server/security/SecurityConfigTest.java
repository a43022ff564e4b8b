package io.rkllm.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where keys, origins and limits come from: file, environment, flags; and what is refused. */
class SecurityConfigTest {
    @TempDir
    Path dir;

    private ServerConfig load(Map<String, String> env, String... args) {
        CommandLine line = CommandLine.parse(args);
        return new ConfigLoader(dir).load(line.configFile(), env, line.configFlags()).config();
    }

    @Test
    void defaultsAreOpenOnLoopbackWithSameOriginOnly() {
        ServerConfig c = load(Map.of());
        assertThat(c.security().apiKeys()).isEmpty();
        assertThat(c.security().publicModels()).isTrue();
        assertThat(c.security().corsOrigins()).isEmpty();
        assertThat(c.limits().maxBodyMb()).isEqualTo(32);
        assertThat(c.limits().maxMessages()).isEqualTo(1024);
        assertThat(c.limits().maxTokens()).isEqualTo(32768);
        assertThat(c.server().host()).isEqualTo("127.0.0.1");
    }

    @Test
    void theApiKeyFlagRepeats() {
        ServerConfig c = load(Map.of(), "--api-key", "key-one-0123456789", "--api-key=key-two-0123456789");
        assertThat(c.security().apiKeys()).containsExactly("key-one-0123456789", "key-two-0123456789");
    }

    @Test
    void theEnvironmentGivesSeveralKeysCommaSeparated() {
        assertThat(load(Map.of("RKLLM_API_KEYS", "k1-0123456789abcdef, k2-0123456789abcdef")).security().apiKeys())
                .containsExactly("k1-0123456789abcdef", "k2-0123456789abcdef");
        assertThat(load(Map.of("RKLLM_SECURITY_API_KEYS", "k3-0123456789abcdef",
                "RKLLM_API_KEYS", "k1-0123456789abcdef")).security().apiKeys())
                .containsExactly("k3-0123456789abcdef", "k1-0123456789abcdef");
        // flags win over the environment
        assertThat(load(Map.of("RKLLM_API_KEYS", "k1-0123456789abcdef"), "--api-key", "k9-0123456789abcdef")
                .security().apiKeys()).containsExactly("k9-0123456789abcdef");
    }

    @Test
    void theConfigFileListsKeysAndOrigins() throws Exception {
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, """
                security:
                  api_keys: [file-key-0123456789]
                  cors_origins: ["http://localhost:3000"]
                  public_models: false
                limits:
                  max_messages: 50
                """);
        ServerConfig c = new ConfigLoader(dir).load(Optional.of(file), Map.of(), Map.of()).config();
        assertThat(c.security().apiKeys()).containsExactly("file-key-0123456789");
        assertThat(c.security().corsOrigins()).containsExactly("http://localhost:3000");
        assertThat(c.security().publicModels()).isFalse();
        assertThat(c.limits().maxMessages()).isEqualTo(50);
    }

    @Test
    void badValuesAreRefusedWithoutEchoingAKey() throws Exception {
        assertThatThrownBy(() -> load(Map.of(), "--security.cors_origins=localhost:3000"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("security.cors_origins");
        assertThatThrownBy(() -> load(Map.of(), "--limits.max_body_mb=0"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("limits.max_body_mb");
        assertThatThrownBy(() -> load(Map.of(), "--server.idle_timeout=0"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("server.idle_timeout");
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, "security:\n  api_keys: {secret-value-123: 1}\n");
        assertThatThrownBy(() -> new ConfigLoader(dir).load(Optional.of(file), Map.of(), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("security.api_keys")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret-value"));
        Files.writeString(file, "security:\n  api_keys: [\"with space\"]\n");
        assertThatThrownBy(() -> new ConfigLoader(dir).load(Optional.of(file), Map.of(), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("printable ASCII")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("with space"));
    }

    @Test
    void loopbackAddressesAreRecognised() {
        assertThat(AccessPolicy.isLoopback("127.0.0.1")).isTrue();
        assertThat(AccessPolicy.isLoopback("localhost")).isTrue();
        assertThat(AccessPolicy.isLoopback("::1")).isTrue();
        assertThat(AccessPolicy.isLoopback("0.0.0.0")).isFalse();
        assertThat(AccessPolicy.isLoopback("::")).isFalse();
    }
}
