package io.rkllm.server.http;

import io.rkllm.server.api.ApiException;
import io.rkllm.server.domain.Failure;
import java.util.Map;

/** What each {@link Failure} is on the wire: its status, error type and code, the same for every API. */
public final class FailureStatus {
    private FailureStatus() {
    }

    public static ApiException of(Failure failure) {
        String message = failure.message();
        return switch (failure) {
            case Failure.InvalidRequest f -> new ApiException(400, "invalid_request_error", f.code(), f.param(), message,
                    Map.of(), null);
            case Failure.ModelNotFound f -> new ApiException(404, "invalid_request_error", "model_not_found", "model",
                    message, Map.of(), null);
            case Failure.ContextTooLong f -> new ApiException(400, "invalid_request_error", "context_length_exceeded",
                    f.param(), message, Map.of("n_prompt_tokens", f.promptTokens(), "n_ctx", f.contextTokens()), null);
            case Failure.QueueFull f -> new ApiException(429, "rate_limit_error", "queue_full", null, message, Map.of(),
                    5);
            case Failure.LoadFailed f -> unavailable("model_load_failed", message, 30);
            case Failure.ModelUnloading f -> unavailable("model_unloading", message, 2);
            case Failure.InsufficientMemory f -> new ApiException(503, "server_error", "insufficient_memory", null,
                    message, Map.of("needed_mb", f.neededMb(), "available_mb", f.availableMb()), 30);
            case Failure.RuntimeFailed f -> ApiException.internal("runtime_error", message);
            // not a 5xx: SDKs retry those, and a second model answer would take as long and most likely fail alike
            case Failure.InvalidOutput f -> new ApiException(422, "invalid_request_error", "invalid_output", null,
                    message, Map.of(), null);
            case Failure.Cancelled f -> switch (f.reason()) {
                case QUEUE_TIMEOUT -> unavailable("queue_timeout", message, 10);
                case FIRST_TOKEN_TIMEOUT, SILENCE_TIMEOUT, TOTAL_TIMEOUT -> new ApiException(504, "server_error",
                        "generation_timeout", null, message, Map.of(), null);
                case SHUTDOWN -> unavailable("shutting_down", message, 5);
                case UNLOADED -> unavailable("model_unloaded", message, 1);
                case PREEMPTED -> unavailable("preempted", message, 1);
                case CLIENT_GONE, STOP_STRING -> ApiException.internal("cancelled", message);
            };
        };
    }

    private static ApiException unavailable(String code, String message, int retryAfterSeconds) {
        return ApiException.unavailable(code, message, retryAfterSeconds);
    }
}
