package io.rkllm.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenEstimatorTest {

    @Test
    void countsAsciiByRatioAndEveryOtherCodePointAsOneToken() {
        TokenEstimator estimator = new TokenEstimator();
        assertThat(estimator.estimate("m", "a".repeat(35))).isEqualTo(10);
        assertThat(estimator.estimate("m", "日本語😀")).isEqualTo(4);
    }

    @Test
    void calibratesPerModelFromTheRuntimesPrefillCounts() {
        TokenEstimator estimator = new TokenEstimator();
        String text = "word ".repeat(100);
        for (int i = 0; i < 20; i++) {
            estimator.calibrate("m", text, 100);
        }
        assertThat(estimator.ratio("m")).isCloseTo(5.0, org.assertj.core.data.Offset.offset(0.05));
        assertThat(estimator.estimate("m", text)).isBetween(99, 102);
        assertThat(estimator.ratio("other")).isEqualTo(TokenEstimator.INITIAL_ASCII_CHARS_PER_TOKEN);
    }

    @Test
    void shortOrImplausibleRunsTeachNothing() {
        TokenEstimator estimator = new TokenEstimator();
        estimator.calibrate("m", "tiny", 1);
        estimator.calibrate("m", "x".repeat(500), 0);
        assertThat(estimator.ratio("m")).isEqualTo(TokenEstimator.INITIAL_ASCII_CHARS_PER_TOKEN);
    }
}
