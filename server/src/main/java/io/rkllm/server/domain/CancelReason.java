package io.rkllm.server.domain;

/** Why a generation was cancelled; reported to clients and counted in metrics. */
public enum CancelReason {
    CLIENT_GONE("the client disconnected"),
    STOP_STRING("a stop string matched"),
    FIRST_TOKEN_TIMEOUT("no first token within the configured time"),
    SILENCE_TIMEOUT("the model produced nothing for too long"),
    TOTAL_TIMEOUT("the generation exceeded the configured total time"),
    QUEUE_TIMEOUT("the request waited too long in the queue"),
    SHUTDOWN("the server is shutting down"),
    PREEMPTED("an interactive request needed the model"),
    UNLOADED("the model was unloaded");

    private final String description;

    CancelReason(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    /** Whether the cancellation is a failure the client should hear about as an error. */
    public boolean isError() {
        return this != STOP_STRING && this != CLIENT_GONE;
    }
}
