package io.rkllm.server.download;

import java.time.Duration;
import java.util.Optional;

/**
 * The Hub or its storage cannot be asked right now: no connection (refused, no route, a name that does not resolve
 * while the network is down), no answer before the timeout, or an answer that says to ask later (a 5xx, 429, 408).
 * A transfer asks again, as after a cut, and keeps what it has downloaded when it gives up; unlike a refusal (401,
 * 403, 404), which asking again would not change.
 */
public final class HubUnavailable extends Exception {
    private final Optional<Duration> retryAfter;

    /**
     * @param why        in words for the user ({@code cannot reach the Hub at URL: Connection refused})
     * @param retryAfter how long the Hub asked to wait ({@code Retry-After}), if it did
     */
    HubUnavailable(String why, Optional<Duration> retryAfter, Throwable cause) {
        super(why, cause);
        this.retryAfter = retryAfter;
    }

    Optional<Duration> retryAfter() {
        return retryAfter;
    }
}
