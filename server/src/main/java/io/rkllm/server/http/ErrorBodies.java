package io.rkllm.server.http;

import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes an error response in whichever shape the route's API uses (OpenAI, Ollama, Anthropic), and
 * marks it written so that the 404 fallback leaves it alone. Nothing is written once a response is
 * committed (a stream reports its errors in its own way).
 */
final class ErrorBodies {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorBodies.class);
    /** Marks a response whose error body is already written. */
    static final String WRITTEN = "rkllm.api-error";

    /** Encodes an error in one API's shape. */
    @FunctionalInterface
    interface Shape {
        byte[] encode(ApiException error) throws Exception;
    }

    /** A route handler whose exceptions become {@code shape}-shaped errors. */
    @FunctionalInterface
    interface Body {
        void handle(Context ctx) throws Exception;
    }

    private ErrorBodies() {
    }

    static void write(Context ctx, ApiException e, Shape shape) {
        if (ctx.res().isCommitted()) {
            return;
        }
        ctx.attribute(WRITTEN, e);
        e.retryAfterSeconds().ifPresent(s -> ctx.header("Retry-After", Integer.toString(s)));
        try {
            ctx.status(e.status()).contentType("application/json").result(shape.encode(e));
        } catch (Exception io) {
            ctx.status(e.status());
        }
    }

    /** Runs {@code body}; every error it throws is written in {@code shape}, an unexpected one as a 500. */
    static void guard(Context ctx, Shape shape, Body body) {
        try {
            body.handle(ctx);
        } catch (ApiException e) {
            write(ctx, e, shape);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            write(ctx, ApiException.unavailable("interrupted", "the server is shutting down", 5), shape);
        } catch (Exception e) {
            LOG.error("request failed: {} {}", ctx.method(), AccessLog.escape(ctx.path()), e);
            write(ctx, ApiException.internal("internal_error", "internal server error: " + e), shape);
        }
    }
}
