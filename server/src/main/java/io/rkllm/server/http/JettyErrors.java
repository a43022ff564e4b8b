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
 * too long, an invalid URI encoding), in the OpenAI shape instead of Jetty's HTML page.
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
            return writeJson(response, callback, code, message);
        }
    }

    /** For the servlet context Javalin runs in (e.g. an undecodable URI). */
    static final class Context extends org.eclipse.jetty.ee10.servlet.ErrorHandler {
        @Override
        protected boolean generateAcceptableResponse(Request request, Response response, Callback callback,
                                                     String contentType, List<Charset> charsets, int code,
                                                     String message, Throwable cause) {
            return writeJson(response, callback, code, message);
        }
    }

    private static boolean writeJson(Response response, Callback callback, int code, String message) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(body(code, message)), callback);
        return true;
    }

    static byte[] body(int status, String reason) {
        String text = reason == null || reason.isBlank() ? HttpStatus.getMessage(status) : reason;
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
