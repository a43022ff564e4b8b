package io.rkllm.server.http;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.util.BufferUtil;

/**
 * Tells whether the client of a non-streaming request has closed its connection, so that its
 * generation is aborted instead of running on for nobody. Streaming requests find out by writing.
 *
 * <p>Jetty 12 does not read an HTTP/1 connection while its request is being handled (no fill
 * interest once the body is read), so it never learns of the client's FIN or RST by itself:
 * {@link EndPoint#isOpen()} and {@link EndPoint#isInputShutdown()} stay unchanged. The probe
 * therefore does a non-blocking read on the endpoint: -1 (end of stream) or an I/O error means the
 * client is gone, 0 means it is still there. Bytes a pipelining client already sent for its next
 * request are handed back to the connection, which parses them once this response is complete
 * (probing then stops).
 * Only HTTP/1.x endpoints are probed (one request at a time owns them).
 */
public final class ClientProbe {
    private static final int PROBE_BUFFER = 4096;

    private final EndPoint endPoint;
    private final Connection connection;
    private boolean gone;
    /** The client already sent its next request: nothing more can be learned without reading into it. */
    private boolean pipelined;

    public ClientProbe(HttpServletRequest request) {
        ServletContextRequest jetty = ServletContextRequest.getServletContextRequest(request);
        ConnectionMetaData meta = jetty == null ? null : jetty.getConnectionMetaData();
        HttpVersion version = meta == null ? null : meta.getHttpVersion();
        boolean http1 = version == HttpVersion.HTTP_1_1 || version == HttpVersion.HTTP_1_0;
        this.connection = http1 ? meta.getConnection() : null;
        this.endPoint = connection == null ? null : connection.getEndPoint();
    }

    /** True once the client has closed its side of the connection (or reset it). Call from the handler's thread. */
    public boolean gone() {
        if (gone) {
            return true;
        }
        if (endPoint == null || pipelined) {
            return false;
        }
        if (!endPoint.isOpen() || endPoint.isInputShutdown()) {
            gone = true;
            return true;
        }
        if (endPoint.isFillInterested()) {
            return false; // someone else reads this connection now: leave it alone
        }
        ByteBuffer buffer = BufferUtil.allocate(PROBE_BUFFER);
        try {
            int filled = endPoint.fill(buffer);
            if (filled < 0) {
                gone = true;
            } else if (filled > 0) {
                handBack(buffer);
            }
        } catch (IOException e) {
            gone = true; // connection reset
        }
        return gone;
    }

    /** A pipelined next request: the connection parses it after the current response. */
    private void handBack(ByteBuffer bytes) {
        pipelined = true;
        if (connection instanceof Connection.UpgradeTo connectionBuffer) {
            connectionBuffer.onUpgradeTo(bytes);
        }
    }
}
