package io.rkllm.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsTest {
    @TempDir
    Path sysfs;

    @Test
    void jvmBindersAreAttachedByTheFirstScrapeAndAppearInIt() {
        try (Metrics metrics = Metrics.of(new ServerConfig.Metrics(true, sysfs))) {
            assertThat(metrics.registry().find("jvm.memory.used").gauges()).as("before any scrape").isEmpty();
            assertThat(metrics.registry().find("rkllm.requests").meters()).isNotNull();

            String first = new String(metrics.scrape(null).body(), StandardCharsets.UTF_8);

            assertThat(metrics.registry().find("jvm.memory.used").gauges()).isNotEmpty();
            assertThat(first).contains("jvm_memory_used_bytes{", "process_uptime_seconds ");
            String second = new String(metrics.scrape(null).body(), StandardCharsets.UTF_8);
            assertThat(second.split("\n")).filteredOn(l -> l.startsWith("# HELP jvm_memory_used_bytes")).hasSize(1);
        }
    }

    @Test
    void disabledMetricsNeverBindTheJvm() {
        try (Metrics metrics = Metrics.of(new ServerConfig.Metrics(false, sysfs))) {
            assertThat(metrics.enabled()).isFalse();
            assertThat(metrics.registry().find("jvm.memory.used").gauges()).isEmpty();
        }
    }
}
