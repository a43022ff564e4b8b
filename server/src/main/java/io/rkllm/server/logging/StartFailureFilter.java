package io.rkllm.server.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

/**
 * Drops Javalin's own "Failed to start Javalin" error: the server reports the same failure (a port in
 * use, an address not of this machine) as one line with its cause, and the error before it only made
 * the clear message look like a crash.
 */
public final class StartFailureFilter extends TurboFilter {
    static final String LOGGER = "io.javalin.Javalin";

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        return level == Level.ERROR && format != null && format.startsWith("Failed to start Javalin")
                && LOGGER.equals(logger.getName()) ? FilterReply.DENY : FilterReply.NEUTRAL;
    }
}
