package io.rkllm.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Who may pull and delete models: security.allow_pull, and auto's answer for each way of listening. */
class PullPolicyTest {
    private static ServerConfig config(String host, String allow) {
        return new ConfigLoader(Path.of("/nonexistent")).load(Optional.empty(), Map.of(),
                Map.of("server.host", host, "security.allow_pull", allow)).config();
    }

    @Test
    void autoAllowsLoopbackOrKeysAndRefusesAnOpenPortNamingTheSetting() {
        assertThat(PullPolicy.of(config("127.0.0.1", "auto"), false).allowed()).isTrue();
        assertThat(PullPolicy.of(config("::1", "auto"), false).allowed()).isTrue();
        assertThat(PullPolicy.of(config("0.0.0.0", "auto"), true).allowed()).isTrue();
        assertThat(PullPolicy.of(config("0.0.0.0", "auto"), false).refusal()).contains("pulling and deleting models is"
                + " not allowed here: this server listens on 0.0.0.0 without API keys, so anyone who can reach it"
                + " could fill its disk; set API keys (security.api_keys) or security.allow_pull: on to allow it");
    }

    @Test
    void onAndOffWhateverTheAddress() {
        assertThat(PullPolicy.of(config("0.0.0.0", "on"), false).allowed()).isTrue();
        assertThat(PullPolicy.of(config("127.0.0.1", "off"), true).refusal())
                .contains("pulling and deleting models is off on this server (security.allow_pull: off)");
    }
}
