package io.rkllm.server.pipeline;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import java.time.Duration;

/**
 * A run's failure as the client should read it: what happened, with the limit that was reached (a watchdog's
 * timeout and its configuration key, the queue's wait).
 */
record FailureWording(ServerConfig.Timeouts timeouts, Duration queueTimeout) {

    Failure forClient(Failure failure) {
        if (failure instanceof Failure.InvalidRequest || failure instanceof Failure.ContextTooLong) {
            return failure; // the backend found the request itself at fault: the client's to change, as it says
        }
        if (!(failure instanceof Failure.Cancelled cancelled)) {
            return new Failure.RuntimeFailed("the model failed while generating: " + failure.message()
                    + ". The model stays loaded; retry the request.");
        }
        CancelReason reason = cancelled.reason();
        String message = switch (reason) {
            case QUEUE_TIMEOUT -> "the request waited " + human(queueTimeout)
                    + " in the queue without starting; the server is busy, retry later";
            case FIRST_TOKEN_TIMEOUT -> "generation aborted: no token within " + human(timeouts.firstToken())
                    + " (timeouts.first_token)";
            case SILENCE_TIMEOUT -> "generation aborted: the model was silent for " + human(timeouts.silence())
                    + " (timeouts.silence)";
            case TOTAL_TIMEOUT -> "generation aborted: the generation exceeded " + human(timeouts.total())
                    + " (timeouts.total)";
            case SHUTDOWN -> "the server is shutting down";
            case UNLOADED -> "the model was unloaded before the request could run";
            case PREEMPTED -> "a background request gave way to an interactive one; retry";
            case CLIENT_GONE, STOP_STRING -> cancelled.message();
        };
        return new Failure.Cancelled(reason, message);
    }

    /** "250 ms", "30 s", "5 min". */
    static String human(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000 || ms % 1000 != 0) {
            return ms + " ms";
        }
        long s = ms / 1000;
        return s % 60 == 0 && s >= 60 ? (s / 60) + " min" : s + " s";
    }
}
