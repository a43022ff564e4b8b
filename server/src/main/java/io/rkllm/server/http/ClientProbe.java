package io.rkllm.server.http;

import jakarta.servlet.http.HttpServletRequest;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;

/**
 * Tells whether the client of a non-streaming request has closed its connection, so that its
 * generation is aborted instead of running on for nobody. Streaming requests find out by writing.
 */
final class ClientProbe {
    private final EndPoint endPoint;

    ClientProbe(HttpServletRequest request) {
        ServletContextRequest jetty = ServletContextRequest.getServletContextRequest(request);
        this.endPoint = jetty == null ? null : jetty.getConnectionMetaData().getConnection().getEndPoint();
    }

    boolean gone() {
        return endPoint != null && (!endPoint.isOpen() || endPoint.isInputShutdown());
    }
}
