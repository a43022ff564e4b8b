package io.rkllm.server.download;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pauses between a transfer's attempts, and the Hub's Retry-After in them. */
class BackoffTest {

    @Test
    void doublesFromTheFirstPause() {
        Backoff b = new Backoff(Duration.ofSeconds(2));

        assertThat(b.next(Optional.empty())).isEqualTo(Duration.ofSeconds(2));
        assertThat(b.next(Optional.empty())).isEqualTo(Duration.ofSeconds(4));
        assertThat(b.next(Optional.empty())).isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void waitsAsLongAsTheHubAsksWhenThatIsLongerUpToAMinute() {
        Backoff b = new Backoff(Duration.ofSeconds(2));

        assertThat(b.next(Optional.of(Duration.ofSeconds(30)))).isEqualTo(Duration.ofSeconds(30));
        assertThat(b.next(Optional.of(Duration.ofSeconds(1)))).isEqualTo(Duration.ofSeconds(4));
        assertThat(b.next(Optional.of(Duration.ofHours(1)))).isEqualTo(Backoff.MOST_ASKED);
    }

    @Test
    void readsRetryAfterSecondsOnly() {
        assertThat(Backoff.retryAfter("120")).contains(Duration.ofSeconds(120));
        assertThat(Backoff.retryAfter(" 0 ")).contains(Duration.ZERO);
        assertThat(Backoff.retryAfter("Wed, 21 Oct 2026 07:28:00 GMT")).isEmpty();
        assertThat(Backoff.retryAfter("-5")).isEmpty();
        assertThat(Backoff.retryAfter("99999999999999999999")).isEmpty();
        assertThat(Backoff.retryAfter(null)).isEmpty();
    }
}
