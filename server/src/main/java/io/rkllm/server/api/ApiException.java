package io.rkllm.server.api;

import java.util.Map;
import java.util.Optional;

/**
 * An error for the client, in the OpenAI shape {@code {"error":{message,type,param,code}}} with an
 * HTTP status. Everything a user can cause is a 4xx; 5xx is kept for genuine server trouble.
 */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String type;
    private final Optional<String> code;
    private final Optional<String> param;
    private final Map<String, Object> extra;
    private final Optional<Integer> retryAfterSeconds;

    public ApiException(int status, String type, String code, String param, String message,
                        Map<String, Object> extra, Integer retryAfterSeconds) {
        super(message);
        this.status = status;
        this.type = type;
        this.code = Optional.ofNullable(code);
        this.param = Optional.ofNullable(param);
        this.extra = Map.copyOf(extra);
        this.retryAfterSeconds = Optional.ofNullable(retryAfterSeconds);
    }

    public static ApiException invalid(String param, String message) {
        return new ApiException(400, "invalid_request_error", null, param, message, Map.of(), null);
    }

    public static ApiException invalidCode(String code, String param, String message) {
        return new ApiException(400, "invalid_request_error", code, param, message, Map.of(), null);
    }

    public static ApiException unavailable(String code, String message, int retryAfterSeconds) {
        return new ApiException(503, "server_error", code, null, message, Map.of(), retryAfterSeconds);
    }

    public static ApiException internal(String code, String message) {
        return new ApiException(500, "server_error", code, null, message, Map.of(), null);
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public Optional<String> code() {
        return code;
    }

    public Optional<String> param() {
        return param;
    }

    public Map<String, Object> extra() {
        return extra;
    }

    public Optional<Integer> retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
