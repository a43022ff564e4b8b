package io.rkllm.server.it;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The log lines of the server's loggers under a package or class, at WARN and above, while open. */
final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(String name) {
        logger = (Logger) LoggerFactory.getLogger(name);
        appender.start();
        logger.addAppender(appender);
    }

    /** Everything logged under {@code io.rkllm.server} (the root logger's level, WARN in tests, applies). */
    static LogCapture server() {
        return new LogCapture("io.rkllm.server");
    }

    /** What llama.cpp logs (through the binding's log sink; the root logger's level, WARN in tests, applies). */
    static LogCapture llamaCpp() {
        return new LogCapture("llama.cpp");
    }

    /** The messages of the warnings so far, formatted. */
    synchronized List<String> warnings() {
        return appender.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** The warnings that contain {@code text}. */
    List<String> warningsContaining(String text) {
        return warnings().stream().filter(w -> w.contains(text)).toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
