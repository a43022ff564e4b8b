package io.rkllm.server.http;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty answers by itself, before a route runs (a malformed request line, headers or URI
 * too long, an invalid URI encoding), as JSON instead of Jetty's HTML page: in the OpenAI shape, or
 * Ollama's or Anthropic's for their routes when the path is known.
 */
final class JettyErrors {
    private JettyErrors() {
    }

    /** For the server: protocol-level errors ({@code badMessageError}) and anything outside the servlet. */
    static final class Server extends ErrorHandler {
        @Override
        public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
            fields.put(HttpHeader.CONTENT_TYPE, "application/json");
            return ByteBuffer.wrap(body(status, reason));
        }

        @Override
        protected boolean generateAcceptableResponse(Request request, Response response, Callback callback,
                                                     String contentType, List<Charset> charsets, int code,
                                                     String message, Throwable cause) {
            return writeJson(request, response, callback, code, message);
        }
    }

    /** For the servlet context Javalin runs in (e.g. an undecodable URI). */
    static final class Context extends org.eclipse.jetty.ee10.servlet.ErrorHandler {
        @Override
        protected boolean generateAcceptableResponse(Request request, Response response, Callback callback,
                                                     String contentType, List<Charset> charsets, int code,
                                                     String message, Throwable cause) {
            return writeJson(request, response, callback, code, message);
        }
    }

    private static boolean writeJson(Request request, Response response, Callback callback, int code,
                                     String message) {
        String path = request.getHttpURI() == null ? "" : request.getHttpURI().getPath();
        byte[] body = path == null ? body(code, message)
                : path.startsWith("/api/") ? ollama(code, message)
                : path.equals("/v1/messages") ? anthropic(code, message)
                : body(code, message);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(body), callback);
        return true;
    }

    /** Ollama's shape, for the /api/ routes. */
    static byte[] ollama(int status, String reason) {
        return ("{\"error\":" + quote("HTTP " + status + ": " + text(status, reason)) + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** Anthropic's shape, for /v1/messages. */
    static byte[] anthropic(int status, String reason) {
        String type = status >= 500 ? "api_error" : status == 413 ? "request_too_large" : "invalid_request_error";
        return ("{\"type\":\"error\",\"error\":{\"type\":\"" + type + "\",\"message\":"
                + quote("HTTP " + status + ": " + text(status, reason)) + "}}").getBytes(StandardCharsets.UTF_8);
    }

    private static String text(int status, String reason) {
        return reason == null || reason.isBlank() ? HttpStatus.getMessage(status) : reason;
    }

    static byte[] body(int status, String reason) {
        String text = text(status, reason);
        String code = switch (status) {
            case 413 -> "request_too_large";
            case 414 -> "uri_too_long";
            case 431 -> "headers_too_large";
            default -> status >= 500 ? "server_error" : "bad_request";
        };
        String type = status >= 500 ? "server_error" : "invalid_request_error";
        return ("{\"error\":{\"message\":" + quote("HTTP " + status + ": " + text) + ",\"type\":\"" + type
                + "\",\"param\":null,\"code\":\"" + code + "\"}}").getBytes(StandardCharsets.UTF_8);
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
