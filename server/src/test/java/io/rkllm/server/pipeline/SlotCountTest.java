package io.rkllm.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlotCountTest {
    private static final long GB = 1L << 30;

    @Test
    void autoGivesTwoSlotsOnlyWhenTwoCopiesFitComfortably() {
        assertThat(SlotCount.resolve("auto", 2 * GB, 16 * GB)).isEqualTo(2);
        assertThat(SlotCount.resolve("auto", 7 * GB, 16 * GB)).isEqualTo(1);
        assertThat(SlotCount.resolve("auto", 2 * GB, 0)).isEqualTo(1);
        assertThat(SlotCount.resolve("3", 7 * GB, 16 * GB)).isEqualTo(3);
    }

    @Test
    void readsMemTotal(@TempDir Path dir) throws Exception {
        Path meminfo = Files.writeString(dir.resolve("meminfo"), "MemTotal:       16338932 kB\nMemFree: 1 kB\n");
        assertThat(SlotCount.systemMemory(meminfo)).isEqualTo(16338932L * 1024);
        assertThat(SlotCount.systemMemory(dir.resolve("missing"))).isZero();
    }
}
