package io.rkllm.server.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.Layout;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import io.rkllm.ffm.UncapturedStdout;
import org.slf4j.Logger;

/**
 * Logging set up in code instead of logback.xml: one line per event on stdout (journald adds the
 * time and unit under systemd), through a duplicate of the stdout descriptor that the runtime's output
 * capture does not redirect. Parsing an XML configuration loads a few hundred classes (an XML
 * parser and Logback's configuration framework) that would stay in memory for nothing.
 * A logback-test.xml on the class path (the tests) still takes precedence.
 */
public final class LogConfigurator extends ContextAwareBase implements Configurator {
    /**
     * The format of a line, as a Logback pattern (LogLineLayout writes it; LogLineLayoutTest compares the two).
     * Control characters in messages and exception messages escaped: client text cannot forge a log line.
     */
    public static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{0} - %safeMsg%n%safeEx";

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (LogConfigurator.class.getClassLoader().getResource("logback-test.xml") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout(context));
        encoder.start();
        OutputStreamAppender<ILoggingEvent> console = stdoutAppender(context, encoder);
        console.start();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(console);
        context.getLogger("org.eclipse.jetty").setLevel(Level.WARN);
        // one warning per malformed Host/authority a client sends: clients must not be able to flood the log
        context.getLogger("org.eclipse.jetty.util.HostPort").setLevel(Level.ERROR);
        context.getLogger("io.javalin").setLevel(Level.WARN);
        StartFailureFilter startFailure = new StartFailureFilter();
        startFailure.setContext(context);
        startFailure.start();
        context.addTurboFilter(startFailure);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /**
     * Writes to a duplicate of standard output, so that log lines written while the runtime's own output
     * is being captured (during {@code rkllm_init}, which can take seconds while other requests are
     * served) reach the journal at once and are not taken for the runtime's lines; System.out where no
     * duplicate can be made.
     */
    private static OutputStreamAppender<ILoggingEvent> stdoutAppender(LoggerContext context,
            LayoutWrappingEncoder<ILoggingEvent> encoder) {
        var stdout = UncapturedStdout.open();
        OutputStreamAppender<ILoggingEvent> appender = stdout.isPresent() ? new OutputStreamAppender<>()
                : new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName("STDOUT");
        appender.setEncoder(encoder);
        stdout.ifPresent(appender::setOutputStream);
        return appender;
    }

    /** The production layout ({@link LogLineLayout}: the {@link #PATTERN} without Logback's pattern parser), started. */
    public static Layout<ILoggingEvent> layout(LoggerContext context) {
        LogLineLayout layout = new LogLineLayout();
        layout.setContext(context);
        layout.start();
        return layout;
    }
}
