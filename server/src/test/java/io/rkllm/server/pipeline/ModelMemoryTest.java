package io.rkllm.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ModelMemoryTest {
    private static final long GB = 1L << 30;

    @Test
    void autoIsSixtyPercentOfTheMachinesMemoryAndNothingWhenItIsUnknown() {
        assertThat(ModelMemory.limit("auto", 10 * GB)).isEqualTo(6 * GB);
        assertThat(ModelMemory.limit("AUTO", 0)).isZero();
    }

    @Test
    void sizesTakeBinarySuffixes() {
        assertThat(ModelMemory.limit("0", 16 * GB)).isZero();
        assertThat(ModelMemory.limit("6G", 16 * GB)).isEqualTo(6 * GB);
        assertThat(ModelMemory.limit("4096M", 16 * GB)).isEqualTo(4 * GB);
        assertThat(ModelMemory.limit("512kb", 0)).isEqualTo(512 * 1024);
        assertThat(ModelMemory.limit("1000", 0)).isEqualTo(1000);
        assertThat(ModelMemory.limit("99999999999999t", 0)).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> ModelMemory.limit("lots", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHandleTakesAboutOnePointThreeTimesItsFile() {
        assertThat(ModelMemory.perHandle(10 * GB)).isEqualTo(13 * GB);
        // Qwen3-1.7B (about 2.3 GB) and Qwen3-Embedding-0.6B (about 0.9 GB) fit side by side on an 8 GB board
        assertThat(ModelMemory.perHandle(2300L << 20) + ModelMemory.perHandle(900L << 20))
                .isLessThanOrEqualTo(ModelMemory.limit("auto", 8 * GB));
    }
}
