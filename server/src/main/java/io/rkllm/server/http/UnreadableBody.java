package io.rkllm.server.http;

import io.rkllm.server.api.ApiException;
import java.util.Optional;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.io.EofException;

/**
 * A request body Jetty could not read to its end: a malformed chunk, fewer bytes than its {@code Content-Length}, a
 * client that stopped sending. The client's doing, not the server's: a 400 (which a client that left never reads),
 * without an error logged with its stack.
 */
final class UnreadableBody {
    private UnreadableBody() {
    }

    static Optional<ApiException> of(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof EofException) {
                return Optional.of(bad("the request body ended before its end (Content-Length or chunks): "
                        + t.getMessage()));
            }
            if (t instanceof HttpException http && http.getCode() >= 400 && http.getCode() < 500) {
                return Optional.of(bad("the request body could not be read: " + t.getMessage()));
            }
        }
        return Optional.empty();
    }

    private static ApiException bad(String message) {
        return ApiException.invalidCode("bad_request", null, message);
    }
}
