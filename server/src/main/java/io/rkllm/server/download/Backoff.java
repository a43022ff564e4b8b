package io.rkllm.server.download;

import java.time.Duration;
import java.util.Optional;

/**
 * The pauses between a transfer's attempts: doubled each time from the first (a Hub that is gone for a moment is not
 * asked again at once, nor many times a second), or what the Hub asked for with {@code Retry-After} when that is
 * longer, up to {@link #MOST_ASKED}: a Hub that asks for an hour would hold a pull that the user can as well run again
 * later, and the partial download is kept for that.
 */
final class Backoff {
    /** The longest {@code Retry-After} waited for. */
    static final Duration MOST_ASKED = Duration.ofMinutes(1);

    private Duration next;

    Backoff(Duration first) {
        this.next = first;
    }

    /** The pause before the next attempt; {@code asked}: the Hub's {@code Retry-After}, if it gave one. */
    Duration next(Optional<Duration> asked) {
        Duration pause = next;
        next = next.multipliedBy(2);
        Duration wanted = asked.map(a -> a.compareTo(MOST_ASKED) > 0 ? MOST_ASKED : a).orElse(Duration.ZERO);
        return wanted.compareTo(pause) > 0 ? wanted : pause;
    }

    /**
     * A {@code Retry-After} header's seconds. Its other form, an HTTP date, is not read: the back-off stands in for it
     * (the Hub and its storage give seconds, when they give anything).
     */
    static Optional<Duration> retryAfter(String header) {
        if (header == null) {
            return Optional.empty();
        }
        String s = header.strip();
        return s.matches("\\d{1,9}") ? Optional.of(Duration.ofSeconds(Long.parseLong(s))) : Optional.empty();
    }
}
