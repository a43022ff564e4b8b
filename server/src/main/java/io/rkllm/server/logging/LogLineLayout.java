package io.rkllm.server.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.LayoutBase;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;

/**
 * The server's log line, {@code HH:mm:ss.SSS LEVEL Logger - message}, then the stack trace if any:
 * what the pattern {@code %d{HH:mm:ss.SSS} %-5level %logger{0} - %safeMsg%n%safeEx} gives, written
 * without Logback's pattern machinery (about 150 classes, 1 MB of a small server's memory, for one
 * fixed format). Messages and exception messages have their control characters escaped
 * ({@link LogText}): text a client sent can never start a forged line.
 */
public final class LogLineLayout extends LayoutBase<ILoggingEvent> {
    private static final String LINE_SEPARATOR = System.lineSeparator();

    private final ZoneId zone = ZoneId.systemDefault();
    /** Stack traces, formatted by Logback's own converter; made when the first exception is logged. */
    private SafeThrowableConverter throwables;

    @Override
    public String doLayout(ILoggingEvent event) {
        StringBuilder line = new StringBuilder(160);
        LocalTime time = Instant.ofEpochMilli(event.getTimeStamp()).atZone(zone).toLocalTime();
        digits(line, time.getHour(), 2).append(':');
        digits(line, time.getMinute(), 2).append(':');
        digits(line, time.getSecond(), 2).append('.');
        digits(line, time.getNano() / 1_000_000, 3).append(' ');
        String level = event.getLevel().toString();
        line.append(level);
        for (int i = level.length(); i < 5; i++) {
            line.append(' ');
        }
        String logger = event.getLoggerName();
        line.append(' ').append(logger.substring(logger.lastIndexOf('.') + 1)).append(" - ")
                .append(LogText.escape(event.getFormattedMessage())).append(LINE_SEPARATOR);
        if (event.getThrowableProxy() != null) {
            line.append(throwables().convert(event));
        }
        return line.toString();
    }

    private synchronized SafeThrowableConverter throwables() {
        if (throwables == null) {
            SafeThrowableConverter converter = new SafeThrowableConverter();
            converter.setContext(getContext());
            converter.start();
            throwables = converter;
        }
        return throwables;
    }

    private static StringBuilder digits(StringBuilder out, int value, int width) {
        String text = Integer.toString(value);
        for (int i = text.length(); i < width; i++) {
            out.append('0');
        }
        return out.append(text);
    }
}
