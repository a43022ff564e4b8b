package io.rkllm.server.http;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.LowResourceMonitor;
import org.eclipse.jetty.server.Server;

/**
 * Takes out of Javalin's default Jetty what this server never uses, because each part costs work on
 * every request, or wake-ups while the server waits (docs/performance.md, "Footprint").
 */
final class LeanJetty {
    private LeanJetty() {
    }

    /**
     * Before Javalin attaches its servlet context to {@code server}. (Its SessionHandler stays: Jetty
     * cannot take it out of a context made with sessions, and without a session cookie it does little.)
     */
    static void server(Server server) {
        // a StatisticsHandler around every request, whose counters nobody reads (/metrics keeps its own)
        server.setHandler((Handler) null);
        // a once-a-second check for a starved thread pool: requests run on virtual threads
        server.getBeans(LowResourceMonitor.class).forEach(server::removeBean);
    }
}
