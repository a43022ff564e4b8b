package io.rkllm.server.http;

import io.rkllm.server.api.ApiException;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty answers by itself, before a route runs (a malformed request line, headers or URI too long, an
 * invalid URI encoding), as JSON instead of Jetty's HTML page, in the shape of the API family that owns the path
 * ({@link ErrorResponses}), OpenAI's when the path is unknown.
 */
final class JettyErrors {
    private JettyErrors() {
    }

    /** For the server: protocol-level errors ({@code badMessageError}) and anything outside the servlet. */
    static final class Server extends ErrorHandler {
        private final ErrorResponses errors;

        Server(ErrorResponses errors) {
            this.errors = errors;
        }

        @Override
        public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
            fields.put(HttpHeader.CONTENT_TYPE, "application/json");
            return ByteBuffer.wrap(errors.bytes(null, exception(status, reason)));
        }

        @Override
        protected boolean generateAcceptableResponse(Request request, Response response, Callback callback,
                                                     String contentType, List<Charset> charsets, int code,
                                                     String message, Throwable cause) {
            return writeJson(errors, request, response, callback, code, message);
        }
    }

    /** For the servlet context Javalin runs in (e.g. an undecodable URI). */
    static final class Context extends org.eclipse.jetty.ee10.servlet.ErrorHandler {
        private final ErrorResponses errors;

        Context(ErrorResponses errors) {
            this.errors = errors;
        }

        @Override
        protected boolean generateAcceptableResponse(Request request, Response response, Callback callback,
                                                     String contentType, List<Charset> charsets, int code,
                                                     String message, Throwable cause) {
            return writeJson(errors, request, response, callback, code, message);
        }
    }

    private static boolean writeJson(ErrorResponses errors, Request request, Response response, Callback callback,
                                     int code, String message) {
        String path = request.getHttpURI() == null ? null : request.getHttpURI().getPath();
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(errors.bytes(path, exception(code, message))), callback);
        return true;
    }

    /** Jetty's status and reason as the error every API family can write. */
    static ApiException exception(int status, String reason) {
        String text = reason == null || reason.isBlank() ? HttpStatus.getMessage(status) : reason;
        String code = switch (status) {
            case 413 -> "request_too_large";
            case 414 -> "uri_too_long";
            case 431 -> "headers_too_large";
            default -> status >= 500 ? "server_error" : "bad_request";
        };
        String type = status >= 500 ? "server_error" : "invalid_request_error";
        return new ApiException(status, type, code, null, "HTTP " + status + ": " + text, Map.of(), null);
    }
}
