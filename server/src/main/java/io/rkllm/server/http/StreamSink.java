package io.rkllm.server.http;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A streamed response body (SSE or NDJSON) written by hand on the raw response stream: every piece with one write
 * and a flush, so that nothing buffers a token.
 */
public final class StreamSink {
    private final OutputStream out;

    private StreamSink(OutputStream out) {
        this.out = out;
    }

    /** Commits the 200 with the streaming headers and {@code contentType} (SSE, NDJSON). */
    public static StreamSink open(HttpServletResponse response, String contentType) throws IOException {
        response.setStatus(200);
        response.setContentType(contentType);
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Accel-Buffering", "no");
        OutputStream out = response.getOutputStream();
        out.flush();
        return new StreamSink(out);
    }

    /** Writes one complete piece and flushes; an IOException means the client is gone. */
    public void send(byte[] piece) throws IOException {
        out.write(piece);
        out.flush();
    }
}
