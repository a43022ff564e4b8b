package io.rkllm.server.http;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Server-sent events written by hand on the raw response stream: every event with one write and a
 * flush, comments as heartbeats, never {@code event:}/{@code id:}/{@code retry:} lines.
 */
final class SseSink {
    static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes();
    static final byte[] DONE = "data: [DONE]\n\n".getBytes();

    private final OutputStream out;

    private SseSink(OutputStream out) {
        this.out = out;
    }

    /** Commits the 200 with the SSE headers. */
    static SseSink open(HttpServletResponse response) throws IOException {
        return open(response, "text/event-stream");
    }

    /** Commits the 200 with the streaming headers and {@code contentType} (SSE, NDJSON). */
    static SseSink open(HttpServletResponse response, String contentType) throws IOException {
        response.setStatus(200);
        response.setContentType(contentType);
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Accel-Buffering", "no");
        OutputStream out = response.getOutputStream();
        out.flush();
        return new SseSink(out);
    }

    /** Writes one complete event and flushes; an IOException means the client is gone. */
    void send(byte[] event) throws IOException {
        out.write(event);
        out.flush();
    }
}
