package io.rkllm.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Every error response of the server, in the shape of the API family that owns its path (OpenAI's where none
 * does), for errors a route raised and for those raised before any route ran (401, 404, 405, 413) or by Jetty
 * itself ({@link JettyErrors}).
 */
public final class ErrorResponses {
    /** Marks a response whose error body is already written, so that the 404 fallback leaves it alone. */
    static final String WRITTEN = "rkllm.api-error";

    private final List<ApiFamily> families;
    private final ErrorShape fallback;
    private final ObjectMapper mapper;

    public ErrorResponses(List<ApiFamily> families, ErrorShape fallback, ObjectMapper mapper) {
        this.families = List.copyOf(families);
        this.fallback = fallback;
        this.mapper = mapper;
    }

    /** The shape of errors on {@code path}. */
    ErrorShape shapeFor(String path) {
        if (path != null) {
            for (ApiFamily family : families) {
                if (family.owns(path)) {
                    return family.errors();
                }
            }
        }
        return fallback;
    }

    /** Writes {@code e} as the response, unless the response is already committed (a stream reports its own). */
    void write(Context ctx, ApiException e) {
        if (ctx.res().isCommitted()) {
            return;
        }
        ctx.attribute(WRITTEN, e);
        e.retryAfterSeconds().ifPresent(s -> ctx.header("Retry-After", Integer.toString(s)));
        ctx.status(e.status()).contentType("application/json").result(bytes(path(ctx), e));
    }

    /** The body of {@code e} on {@code path}, as bytes. */
    byte[] bytes(String path, ApiException e) {
        try {
            return mapper.writeValueAsBytes(shapeFor(path).body(e));
        } catch (JsonProcessingException x) {
            throw new UncheckedIOException(x);
        }
    }

    private static String path(Context ctx) {
        return ctx.path();
    }
}
